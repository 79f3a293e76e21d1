/**
 * `service:apply_patch`: the model edits the container's files with V4A
 * patches. Request entry `{type: "service:apply_patch", parameters?: {engine?, environment?, sleep_after_seconds?}}`;
 * accepted in every inbound format.
 *
 * Model arguments, exactly one of: `patch`, a whole V4A patch (`*** Begin Patch` … `*** End Patch`, any number of
 * files), or `operation: {type: create_file|update_file|delete_file, path, diff?}`, the per-file form of OpenAI's
 * `apply_patch_call`. Engine `service` (or `auto`) applies it in the container, all or nothing
 * (./apply-to-container.ts); a patch that does not parse or fit comes back to the model as its error result, naming
 * the line or hunk. Result: `{status: "completed", output, operations: [{type, path, move_to?}], container_id}`.
 * `engine: "native"` hands the call to the client instead, as an ordinary tool call with these arguments.
 */
import { type Static, Type } from "@sinclair/typebox";
import { defineTool } from "../../core/sdk/index.ts";
import { argumentsChecker } from "../container-kit/arguments.ts";
import { containerRequest, EngineContainerParameters } from "../container-kit/container-parameters.ts";
import { type AppliedOperation, applyToContainer } from "./apply-to-container.ts";
import { parseCreateDiff, parsePatch, parseUpdateDiff } from "./v4a-parse.ts";
import { PatchError, type PatchOperation } from "./v4a-types.ts";

const Operation = Type.Object(
  {
    type: Type.Union([Type.Literal("create_file"), Type.Literal("update_file"), Type.Literal("delete_file")]),
    path: Type.String({ minLength: 1, maxLength: 1024, description: "File path relative to the container's working directory." }),
    diff: Type.Optional(
      Type.String({ description: "create_file: the file's lines, each prefixed with +. update_file: V4A hunks (@@ anchor lines; then lines prefixed with space, - or +). Not used by delete_file." }),
    ),
  },
  { additionalProperties: false },
);

export const ArgumentsSchema = Type.Object(
  {
    patch: Type.Optional(
      Type.String({
        description:
          "A whole V4A patch: *** Begin Patch, then per file *** Add File: <path> (lines prefixed +), *** Update File: <path> (optional *** Move to: <path>, then @@ hunks with space/-/+ lines, about 3 lines of context around each change) or *** Delete File: <path>, then *** End Patch.",
      }),
    ),
    operation: Type.Optional(Operation),
  },
  { additionalProperties: false },
);
type PatchArguments = Static<typeof ArgumentsSchema>;
const checkArguments = argumentsChecker(ArgumentsSchema);

export interface ApplyPatchResult {
  status: "completed";
  output: string;
  operations: AppliedOperation[];
  container_id: string;
}

/** The operations a call asks for, parsed (a PatchError when they are not valid V4A). */
export function operationsOf(args: PatchArguments): PatchOperation[] {
  if ((args.patch === undefined) === (args.operation === undefined)) throw new PatchError("give exactly one of patch or operation");
  if (args.patch !== undefined) return parsePatch(args.patch);
  const { type, path, diff } = args.operation!;
  if (type === "delete_file") return [{ type, path }];
  if (diff === undefined) throw new PatchError(`${type} needs a diff`);
  return type === "create_file" ? [{ type, path, content: parseCreateDiff(diff) }] : [{ type, path, hunks: parseUpdateDiff(diff) }];
}

export default defineTool({
  id: "service:apply_patch",
  description:
    "Creates, updates and deletes files in the sandboxed container with V4A patches. A patch applies completely or not at all; if it does not fit the current files, read them again and retry.",
  argumentsSchema: ArgumentsSchema,
  parametersSchema: EngineContainerParameters,
  nativeRunsOnClient: true,
  async run(args, ctx): Promise<ApplyPatchResult> {
    checkArguments(args);
    // Parsed before the container is opened: a malformed patch costs no sandbox.
    const operations = operationsOf(args as PatchArguments);
    const container = await ctx.container(containerRequest(ctx.parameters));
    const { output, operations: applied } = await applyToContainer(container, operations);
    return { status: "completed", output, operations: applied, container_id: container.id };
  },
});
