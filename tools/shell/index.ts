/**
 * `service:shell`: runs shell commands in the request's
 * container, each command its own invocation (a failing or timed-out one does not stop the next). Request entry
 * `{type: "service:shell", parameters?: {engine?, environment?, sleep_after_seconds?}}`; accepted in every inbound
 * format.
 *
 * The model calls it with `{commands: [...], timeout_ms?, max_output_length?}` (both per command, clamped); the result
 * is `{output: [{stdout, stderr, outcome: {type: "exit", exit_code} | {type: "timeout"}}], container_id}`, one entry per
 * command in order. `engine: "native"` hands the call to the client instead.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { ExecResult } from "../../core/sdk/index.ts";
import { defineTool } from "../../core/sdk/index.ts";
import { argumentsChecker } from "../container-kit/arguments.ts";
import { containerRequest, EngineContainerParameters } from "../container-kit/container-parameters.ts";
import { annotatedStderr, commandsTimeMs, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, execOptions, MAX_OUTPUT_BYTES, MAX_TIMEOUT_MS } from "../container-kit/exec-limits.ts";

export const ArgumentsSchema = Type.Object(
  {
    commands: Type.Array(Type.String({ minLength: 1, maxLength: 100_000 }), {
      minItems: 1,
      maxItems: 50,
      description: "Shell commands to run in order; each one runs on its own and gets its own output entry.",
    }),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, description: `Time limit per command in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}).` })),
    max_output_length: Type.Optional(Type.Integer({ minimum: 1, description: `Bytes kept of each command's stdout and stderr (default ${DEFAULT_MAX_OUTPUT_BYTES}, at most ${MAX_OUTPUT_BYTES}).` })),
  },
  { additionalProperties: false },
);
type ShellArguments = Static<typeof ArgumentsSchema>;
const checkArguments = argumentsChecker(ArgumentsSchema);

export type ShellOutcome = { type: "exit"; exit_code: number } | { type: "timeout" };

export interface ShellOutput {
  stdout: string;
  stderr: string;
  outcome: ShellOutcome;
}

export interface ShellResult {
  output: ShellOutput[];
  container_id: string;
}

function outcomeOf(result: ExecResult): ShellOutcome {
  return result.timedOut || result.exitCode === null ? { type: "timeout" } : { type: "exit", exit_code: result.exitCode };
}

export default defineTool({
  id: "service:shell",
  description:
    "Runs shell commands in a sandboxed container, each on its own, and returns each one's stdout, stderr and exit status. The container and its files persist between calls.",
  argumentsSchema: ArgumentsSchema,
  parametersSchema: EngineContainerParameters,
  nativeRunsOnClient: true,
  // Each command runs on its own, one after another, each under its time-out.
  runTimeMs: (args) => commandsTimeMs(args, Array.isArray(args.commands) ? args.commands.length : 1),
  async run(args, ctx): Promise<ShellResult> {
    checkArguments(args);
    const shellArgs = args as ShellArguments;
    const container = await ctx.container(containerRequest(ctx.parameters));
    const options = execOptions(shellArgs, ctx.signal);
    const output: ShellOutput[] = [];
    // In order, one at a time: a later command may depend on what an earlier one wrote.
    for (const command of shellArgs.commands) {
      if (ctx.signal.aborted) break;
      const result = await container.exec(command, options);
      output.push({ stdout: result.stdout, stderr: annotatedStderr(result, options, false), outcome: outcomeOf(result) });
    }
    return { output, container_id: container.id };
  },
});
