/**
 * `service:files`: list, read, write and edit the files of the request's container
 * (the one bash and shell run in, so the model can inspect and change what its commands produced). Request entry
 * `{type: "service:files", parameters?: {environment?, sleep_after_seconds?}}`; every inbound format. Operations and
 * results: ./operations.ts, plus `container_id`. File ids are the container listing's (`cfile_…`, core/containers/file-ids.ts).
 */
import { Type } from "@sinclair/typebox";
import { defineTool } from "../../core/sdk/index.ts";
import { argumentsChecker } from "../container-kit/arguments.ts";
import { ContainerParameters, containerRequest } from "../container-kit/container-parameters.ts";
import { type FilesArguments, type FilesResult, runOperation } from "./operations.ts";

const NAME = Type.String({ minLength: 1, maxLength: 1024 });

export const ArgumentsSchema = Type.Object(
  {
    operation: Type.Union([Type.Literal("list"), Type.Literal("read"), Type.Literal("write"), Type.Literal("edit")], {
      description: "list: the files (optionally filtered); read: a file's text; write: create or overwrite a file; edit: replace one exact snippet and/or rename.",
    }),
    filename: Type.Optional({ ...NAME, description: "Path of the file, relative to the container's working directory (read, write, edit)." }),
    file_id: Type.Optional({ ...NAME, description: "A file id from an earlier listing, instead of filename." }),
    filename_filter: Type.Optional({ ...NAME, description: "list only: a substring of the path, or a glob such as *.py or src/**/*.ts." }),
    content: Type.Optional(Type.String({ description: "write only: the file's whole new content." })),
    old_string: Type.Optional(Type.String({ description: "edit only: text that occurs exactly once in the file." })),
    new_string: Type.Optional(Type.String({ description: "edit only: what replaces old_string." })),
    new_filename: Type.Optional({ ...NAME, description: "edit only: rename the file to this path." }),
  },
  { additionalProperties: false },
);
const checkArguments = argumentsChecker(ArgumentsSchema);

export default defineTool({
  id: "service:files",
  description:
    "Lists, reads, writes and edits files in the sandboxed container that the bash and shell tools also use. Edits replace one exact, unique snippet.",
  argumentsSchema: ArgumentsSchema,
  parametersSchema: ContainerParameters,
  async run(args, ctx): Promise<FilesResult & { container_id: string }> {
    checkArguments(args);
    const container = await ctx.container(containerRequest(ctx.parameters));
    return { ...(await runOperation(container, args as unknown as FilesArguments)), container_id: container.id };
  },
});
