/**
 * The files tool's four operations on one container: `list`, `read`, `write`
 * (creates or overwrites) and `edit` (replace exactly one occurrence of `old_string`, and/or rename to `new_filename`).
 * Each returns `{result, file_id?, filename?}`: `result` is what the reference's `{result: …}` carries, `file_id` and
 * `filename` name the file it touched (the Responses item shows them). A failure is thrown: the model sees `{error}`.
 */
import type { ContainerHandle } from "../../core/sdk/index.ts";
import { fileIdOf, pathOfFileId } from "../../core/sdk/index.ts";
import { pathFilter } from "./filter.ts";
import { containerPath } from "../container-kit/paths.ts";

/** A listing stops here (the model cannot use more; narrowing the filter is the way on). */
export const MAX_LISTED = 1000;
/** A read longer than this is cut (with a note): a large file would otherwise flood the model's context. */
export const MAX_READ_CHARS = 200_000;

export interface FilesArguments {
  operation: "list" | "read" | "write" | "edit";
  filename?: string;
  file_id?: string;
  filename_filter?: string;
  content?: string;
  old_string?: string;
  new_string?: string;
  new_filename?: string;
}

export interface FilesResult {
  result: unknown;
  file_id?: string;
  filename?: string;
  /** Set when a listing was cut at MAX_LISTED. */
  note?: string;
}

/** The file the call names: `filename`, else `file_id`. */
function targetPath(args: FilesArguments): string {
  if (args.filename !== undefined) return containerPath(args.filename);
  if (args.file_id !== undefined) {
    const path = pathOfFileId(args.file_id);
    if (path === undefined) throw new Error(`file_id "${args.file_id}" is not a container file id`);
    return containerPath(path, "file_id");
  }
  throw new Error(`${args.operation} needs a filename`);
}

const named = (path: string, result: unknown): FilesResult => ({ file_id: fileIdOf(path), filename: path, result });

async function list(container: ContainerHandle, args: FilesArguments): Promise<FilesResult> {
  const keep = pathFilter(args.filename_filter);
  const files = (await container.listFiles()).filter((file) => keep(file.path)).sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const shown = files.slice(0, MAX_LISTED).map((file) => ({ file_id: fileIdOf(file.path), filename: file.path, bytes: file.bytes, created_at: file.createdAt }));
  if (files.length <= MAX_LISTED) return { result: shown };
  return { result: shown, note: `showing the first ${MAX_LISTED} of ${files.length} files; narrow filename_filter to see the others` };
}

async function read(container: ContainerHandle, args: FilesArguments): Promise<FilesResult> {
  const path = targetPath(args);
  const content = await container.readFile(path);
  if (content.length <= MAX_READ_CHARS) return named(path, content);
  return named(path, `${content.slice(0, MAX_READ_CHARS)}\n[truncated: showing the first ${MAX_READ_CHARS} of ${content.length} characters]`);
}

async function write(container: ContainerHandle, args: FilesArguments): Promise<FilesResult> {
  const path = targetPath(args);
  if (args.content === undefined) throw new Error("write needs content (use an empty string for an empty file)");
  await container.writeFile(path, args.content);
  return named(path, { bytes: Buffer.byteLength(args.content, "utf8") });
}

/** Where `needle` occurs in `text` (non-overlapping), up to two: enough to tell none, one and many apart. */
function occurrences(text: string, needle: string): number {
  const first = text.indexOf(needle);
  if (first === -1) return 0;
  return text.indexOf(needle, first + needle.length) === -1 ? 1 : 2;
}

async function edit(container: ContainerHandle, args: FilesArguments): Promise<FilesResult> {
  const path = targetPath(args);
  const replacing = args.old_string !== undefined || args.new_string !== undefined;
  if (!replacing && args.new_filename === undefined) throw new Error("edit needs old_string and new_string, or new_filename");
  const done: Record<string, unknown> = {};
  if (replacing) {
    if (args.old_string === undefined || args.new_string === undefined) throw new Error("edit needs both old_string and new_string");
    if (args.old_string === "") throw new Error("old_string is empty; use write to replace a whole file");
    const content = await container.readFile(path);
    const count = occurrences(content, args.old_string);
    if (count === 0) throw new Error(`old_string was not found in ${path}`);
    if (count > 1) throw new Error(`old_string occurs more than once in ${path}; include more surrounding text so it matches exactly one place`);
    const at = content.indexOf(args.old_string);
    await container.writeFile(path, content.slice(0, at) + args.new_string + content.slice(at + args.old_string.length));
    done.replaced = 1;
  }
  if (args.new_filename === undefined) return named(path, done);
  const target = containerPath(args.new_filename, "new_filename");
  if (target !== path) await container.renameFile(path, target);
  done.renamed_from = path;
  return named(target, done);
}

export function runOperation(container: ContainerHandle, args: FilesArguments): Promise<FilesResult> {
  switch (args.operation) {
    case "list":
      return list(container, args);
    case "read":
      return read(container, args);
    case "write":
      return write(container, args);
    case "edit":
      return edit(container, args);
  }
}
