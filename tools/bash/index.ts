/**
 * `service:bash`: runs a bash command in the request's
 * container (core/containers: a sandbox whose files outlive the request). Request entry
 * `{type: "service:bash", parameters?: {engine?, environment?, sleep_after_seconds?}}`; accepted in every inbound
 * format (which overrides the reference's Messages-only note).
 *
 * The model calls it with `command` (or `commands[]`, joined by newlines into one script, so later commands run even
 * when an earlier one fails, as typed into a terminal), `restart` (a fresh container for the rest of the request),
 * `timeout_ms` and `max_output_length` (clamped, tools/container-kit/exec-limits.ts). Result:
 * `{command, stdout, stderr, exitCode, container_id}`; a timed-out command reports exit code 124 and says so in
 * stderr. `container_id` is exactly what `GET /containers/{id}/files` takes. `engine: "native"` hands the call to the
 * client instead (an ordinary tool call it runs itself).
 */
import { type Static, Type } from "@sinclair/typebox";
import { defineTool } from "../../core/sdk/index.ts";
import { argumentsChecker } from "../container-kit/arguments.ts";
import { containerRequest, EngineContainerParameters } from "../container-kit/container-parameters.ts";
import { annotatedStderr, commandsTimeMs, DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, execOptions, MAX_OUTPUT_BYTES, MAX_TIMEOUT_MS, TIMEOUT_EXIT_CODE } from "../container-kit/exec-limits.ts";

const COMMAND = Type.String({ maxLength: 100_000 });

export const ArgumentsSchema = Type.Object(
  {
    command: Type.Optional({ ...COMMAND, description: "The bash command (or multi-line script) to run." }),
    commands: Type.Optional(Type.Array(COMMAND, { minItems: 1, maxItems: 100, description: "Several commands, run in order as one script." })),
    restart: Type.Optional(Type.Boolean({ description: "Start over in a fresh, empty container (for the rest of this request); the command, if any, runs there." })),
    timeout_ms: Type.Optional(Type.Integer({ minimum: 1, description: `Time limit in milliseconds (default ${DEFAULT_TIMEOUT_MS}, at most ${MAX_TIMEOUT_MS}).` })),
    max_output_length: Type.Optional(Type.Integer({ minimum: 1, description: `Bytes kept of stdout and of stderr each (default ${DEFAULT_MAX_OUTPUT_BYTES}, at most ${MAX_OUTPUT_BYTES}).` })),
  },
  { additionalProperties: false },
);
type BashArguments = Static<typeof ArgumentsSchema>;
const checkArguments = argumentsChecker(ArgumentsSchema);

export interface BashResult {
  command: string;
  stdout: string;
  stderr: string;
  exitCode: number;
  container_id: string;
}

/** The script to run: `command`, or `commands` one per line; undefined when the call only restarts. */
function scriptOf(args: BashArguments): string | undefined {
  if (args.command !== undefined && args.commands !== undefined) throw new Error("invalid arguments: give either command or commands, not both");
  const script = args.command ?? args.commands?.join("\n");
  if (script !== undefined && script.trim() !== "") return script;
  if (args.restart === true) return undefined;
  throw new Error("invalid arguments: command is required (a non-empty command, commands, or restart: true)");
}

export default defineTool({
  id: "service:bash",
  description:
    "Runs a bash command in a sandboxed container and returns its stdout, stderr and exit code. The container and its files persist between calls, so later commands see what earlier ones wrote.",
  argumentsSchema: ArgumentsSchema,
  parametersSchema: EngineContainerParameters,
  nativeRunsOnClient: true,
  // `command` and `commands[]` run as one script under one time-out.
  runTimeMs: (args) => commandsTimeMs(args, 1),
  async run(args, ctx): Promise<BashResult> {
    checkArguments(args);
    const bashArgs = args as BashArguments;
    const script = scriptOf(bashArgs);
    const container = await ctx.container(containerRequest(ctx.parameters, bashArgs.restart === true));
    if (script === undefined) return { command: "", stdout: "", stderr: "", exitCode: 0, container_id: container.id };
    const options = execOptions(bashArgs, ctx.signal);
    const result = await container.exec(script, options);
    return {
      command: script,
      stdout: result.stdout,
      stderr: annotatedStderr(result, options, true),
      exitCode: result.timedOut || result.exitCode === null ? TIMEOUT_EXIT_CODE : result.exitCode,
      container_id: container.id,
    };
  },
});
