/**
 * Server tool contract (spec "What the service does" 4): tools the gateway runs on the model's behalf inside the
 * agent loop. A tool is declared in a request as `{type: "service:<name>", parameters}`; the upstream model sees it
 * as an ordinary function tool (`modelName`, `description`, `argumentsSchema`); when the model calls it the loop runs
 * `run` and hands the model its JSON result. A tool that throws gives the model `{error}`; it never fails the request.
 */
import type { TSchema } from "@sinclair/typebox";
import type { ContainerHandle, ContainerRequest } from "../containers/contract.ts";
import type { ImageGeneration, ImageGenerationRequest } from "../images/types.ts";
import type { InboundFormat, Tool } from "../model/request.ts";
import type { CatalogView } from "../routing/catalog-view.ts";
import type { ModuleBase } from "./define.ts";
import type { FetchFunction, ModuleHelpers } from "./helpers.ts";

/** What a tool's `declare` check sees when a request declares it (before any upstream call). */
export interface ToolDeclaration {
  /** The entry's `parameters`, already checked against `parametersSchema`. */
  parameters: Record<string, unknown>;
  /** The operator's settings for this tool (config file `tools.<name>`, secrets resolved); `{}` when absent. */
  config: Record<string, unknown>;
  /** The wire format the client spoke. */
  format: InboundFormat;
  catalog: CatalogView;
  helpers: ModuleHelpers;
  /** Where the entry is in the request, for error messages (`tools[2].parameters`). */
  field: string;
}

export interface ToolRunContext {
  /** The tool entry's `parameters` from the request (checked at declaration). */
  parameters: Record<string, unknown>;
  /** The operator's settings for this tool (config file `tools.<name>`); `{}` when absent. */
  config: Record<string, unknown>;
  helpers: ModuleHelpers;
  /** Aborted when the client goes away or the call times out: stop work and return. */
  signal: AbortSignal;
  /**
   * Server-side HTTP under the gateway's network policy: http(s) only, every resolved address (on every redirect)
   * checked against private, loopback, link-local and metadata ranges unless the operator allow-lists them. A refusal
   * rejects with an Error whose message says why; the loop turns it into the model's error result. Bound to the
   * call's `signal`; `helpers.fetch` is the same policy without that binding.
   */
  fetch: FetchFunction;
  /**
   * The gateway's upstream client, outside the network policy: only for a URL the operator configured (the tool's
   * `tools.<name>` settings), never one a request or a model names.
   */
  upstreamFetch: FetchFunction;
  /** The gateway's model catalog (read-only). */
  catalog: CatalogView;
  /** Every tool the request declared, deferred ones included (what `service:tool_search` searches). */
  tools: readonly Tool[];
  /** Makes deferred function tools visible to the model from the next turn on (`service:tool_search`). */
  reveal(names: readonly string[]): void;
  /** Times this tool already ran in this request (for `max_uses`). */
  previousUses: number;
  /**
   * Bills priced work (a paid search engine call) with the request, held against the key's credit limit first;
   * rejects when the limit cannot cover it (the call then fails and the model is told).
   */
  charge(usd: number, description: string): Promise<void>;
  /**
   * Makes one image with a configured image model (`service:image_generation`; core/images/generate.ts): the model's
   * per-image price is charged first (held against the key's credit limit) and taken back when the call fails;
   * rejects saying why. Always set by the agent loop; optional only so contexts built by hand need not provide it.
   */
  generateImage?(request: ImageGenerationRequest): Promise<ImageGeneration>;
  /**
   * The container this call runs in (bash, shell, files, apply_patch): a new one, the session's, or a referenced one
   * of the caller's workspace, per `request.environment`. Rejects with a ContainerError (an error result for the
   * model) for an unknown or foreign id or when the sandbox is unavailable.
   */
  container(request: ContainerRequest): Promise<ContainerHandle>;
  /** The request's `session_id`, when it sent one. */
  sessionId?: string;
  /** The workspace of the key that made the request. */
  workspaceId?: string;
}

export interface ToolModule extends ModuleBase {
  /** `service:<name>`. */
  readonly id: string;
  /** What the model is told the tool does. */
  readonly description: string;
  /** The function name the model sees; default: the id without `service:`. */
  readonly modelName?: string;
  /** JSON schema of the arguments the model calls the tool with (shown to the model). */
  readonly argumentsSchema: Record<string, unknown>;
  /** The request entry's `parameters` (TypeBox; unknown keys and out-of-range values → 400 naming the field). */
  readonly parametersSchema?: TSchema;
  /** Formats that may declare it (default: all). Others get a 400. */
  readonly formats?: readonly InboundFormat[];
  /**
   * `parameters.engine: "native"` means the client runs the call (bash, shell, apply_patch): the model sees the tool
   * as an ordinary function and its calls come back to the client like any client tool call. Otherwise a native
   * tool goes to the upstream to run (its own web search).
   */
  readonly nativeRunsOnClient?: boolean;
  /** A `usage.serverTools` counter each executed call adds to (e.g. `web_search_requests`). */
  readonly usageCounter?: string;
  /**
   * How long one call may take by its own arguments (a command's `timeout_ms`); when that is longer than the loop's
   * `agent_loop.tool_timeout_ms`, the call gets it plus a margin, so the tool's own limit is what ends it.
   */
  runTimeMs?(args: Record<string, unknown>): number;
  /** Checks beyond the schema at declaration time (an unknown time zone, an engine not configured); throws a 400. */
  declare?(declaration: ToolDeclaration): void;
  /** Runs one call; the resolved JSON value is what the model sees. */
  run(args: Record<string, unknown>, ctx: ToolRunContext): Promise<unknown>;
}
