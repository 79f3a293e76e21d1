/** Server tool contract (spec "Server tools"): the gateway runs these on the model's behalf. */
import type { ModuleBase } from "./define.ts";
import type { ModuleHelpers } from "./helpers.ts";

export interface ToolRunContext {
  /** The tool entry's `parameters` from the request. */
  parameters: Record<string, unknown>;
  helpers: ModuleHelpers;
  signal: AbortSignal;
  sessionId?: string;
}

export interface ToolModule extends ModuleBase {
  /** JSON schema of the arguments the model calls the tool with (shown to the model). */
  readonly argumentsSchema: Record<string, unknown>;
  run(args: Record<string, unknown>, ctx: ToolRunContext): Promise<unknown>;
}
