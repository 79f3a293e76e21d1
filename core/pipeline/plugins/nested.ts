/**
 * Work a plugin runs inside its request besides wrapping turns (PluginContext `complete` and `runTool`): a whole
 * sub-request through the agent loop (a fusion panelist's draft, a router's judge), and one server-tool call (the
 * `web` plugin's search). Both share the request's bill, attempts and pipeline entries, so everything they do is
 * billed, held against the key's limit and reported with the request.
 */
import { errors } from "../../errors.ts";
import { collect } from "../../model/collect.ts";
import type { EventStream, StreamEvent } from "../../model/events.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { CanonicalResponse } from "../../model/response.ts";
import type { RegisteredPlugin } from "../../registry/define.ts";
import { sharedCatalogView } from "../../routing/catalog-view.ts";
import { declaredTools } from "../../tools/declared.ts";
import { ToolRunner } from "../agent/tool-runner.ts";
import type { RequestContext } from "../context.ts";
import { agentLoopStage } from "../stages/agent-loop.ts";

/**
 * Runs `request` to a whole response; its turns pass the `around` hooks of the plugins after `plugin` only. With
 * `onEvent` it runs streamed, each event handed over as it arrives (and folded into the response as collect does).
 */
export async function completeWithin(
  ctx: RequestContext,
  plugin: RegisteredPlugin,
  request: CanonicalRequest,
  { signal, onEvent }: { signal?: AbortSignal | undefined; onEvent?: ((event: StreamEvent) => void) | undefined } = {},
): Promise<CanonicalResponse> {
  const after = ctx.plugins.findIndex((active) => active.plugin === plugin) + 1;
  // A context of its own (a shallow copy): what routing and the loop write (candidates, route, served endpoint,
  // containers) stays the sub-request's, while the bill, attempts, pipeline and log are the request's objects.
  // The request's reservation is sized for its own model and covers its own first turn; a sub-request's model may
  // be dearer, so its turns never use it: each holds its own worst case (Bill.turnStarts).
  const nested: RequestContext = {
    ...ctx,
    request: { ...request, stream: onEvent !== undefined },
    plugins: ctx.plugins.slice(after),
    signal: signal ? AbortSignal.any([ctx.signal, signal]) : ctx.signal,
    subRequest: true,
  };
  const outcome = await agentLoopStage.run(nested, () => Promise.reject(new Error("the agent loop is the innermost stage")));
  if (outcome.kind === "response") return outcome.response;
  return collect(onEvent ? observed(outcome.events, onEvent) : outcome.events);
}

async function* observed(events: EventStream, onEvent: (event: StreamEvent) => void): EventStream {
  for await (const event of events) {
    onEvent(event);
    yield event;
  }
}

/** Runs one call of server tool `type` as the agent loop would; resolves with its result, rejects with its error. */
export async function runToolWithin(ctx: RequestContext, type: string, args: Record<string, unknown>, parameters: Record<string, unknown> = {}): Promise<unknown> {
  const deps = ctx.deps;
  const env = { registry: deps.registry, settings: deps.config.tools, catalog: sharedCatalogView(deps.catalog, deps.routing), helpers: deps.guardedHelpers };
  // Declared like a request's own tool entry: unknown types, bad parameters and the tool's own checks are 400s.
  const declared = declaredTools({ ...ctx.request, tools: [{ kind: "server", type, parameters }] }, env);
  const tool = declared?.list[0];
  if (!declared || !tool || tool.native) throw errors.invalid(`${type}: this tool cannot be run by the gateway here`);
  const part = await new ToolRunner(ctx, declared, ctx.signal).run({
    id: deps.ids.id("st_"),
    callId: deps.ids.id("call_"),
    modelName: tool.modelName,
    arguments: JSON.stringify(args),
    tool,
  });
  if (part.status !== "completed") throw new Error(part.error ?? `${type} failed`);
  return part.result;
}
