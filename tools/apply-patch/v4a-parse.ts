/**
 * V4A text → operations (./v4a-types.ts). Two inputs: a whole patch (`*** Begin Patch` … `*** End Patch` with
 * `*** Add File:`, `*** Update File:` (+ optional `*** Move to:`) and `*** Delete File:` sections), and the headerless
 * per-operation diffs of OpenAI's `apply_patch_call` (`update_file`: hunks only; `create_file`: `+` lines only).
 *
 * Leniency where models are known to slip and the intent is unambiguous: CRLF, a Markdown code fence around the
 * patch, an empty line inside a hunk (an empty context line), unified-diff range headers (`@@ -3,7 +3,8 @@ fn`,
 * whose numbers are ignored and whose trailing text is an anchor). Anything else that is not V4A is an error naming
 * the line, so the model can fix its patch.
 */
import { type Hunk, PatchError, type PatchLine, type PatchOperation } from "./v4a-types.ts";

const BEGIN = "*** Begin Patch";
const END = "*** End Patch";
const ADD = "*** Add File:";
const UPDATE = "*** Update File:";
const DELETE = "*** Delete File:";
const MOVE = "*** Move to:";
const END_OF_FILE = "*** End of File";

/** A unified-diff hunk header; group 1 is the text after it (git's function context). */
const UNIFIED_RANGE = /^@@ -\d+(?:,\d+)? \+\d+(?:,\d+)? @@ ?(.*)$/;

/** Lines of `text` with `\r\n` and `\r` read as newlines; a final newline does not make an extra empty line. */
function linesOf(text: string): string[] {
  const lines = text.replace(/\r\n?/g, "\n").split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

function isFileHeader(line: string): boolean {
  return line.startsWith(ADD) || line.startsWith(UPDATE) || line.startsWith(DELETE) || line.trimEnd() === END;
}

function headerPath(line: string, header: string, lineNo: number): string {
  const path = line.slice(header.length).trim();
  if (path === "") throw new PatchError(`line ${lineNo}: "${header}" needs a path`);
  return path;
}

/** Drops a Markdown fence (```diff … ```) around the patch. */
function unfenced(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === "") start++;
  while (end > start && lines[end - 1]!.trim() === "") end--;
  if (end - start >= 2 && lines[start]!.trim().startsWith("```") && lines[end - 1]!.trim() === "```") return lines.slice(start + 1, end - 1);
  return lines.slice(start, end);
}

/** A whole patch. Throws a PatchError naming the (1-based) line at fault. */
export function parsePatch(text: string): PatchOperation[] {
  const lines = unfenced(linesOf(text));
  if (lines.length === 0 || lines[0]!.trim() !== BEGIN) throw new PatchError(`a patch must start with "${BEGIN}"`);
  const endAt = lines.findLastIndex((line) => line.trim() === END);
  if (endAt <= 0) throw new PatchError(`a patch must end with "${END}"`);
  if (lines.slice(endAt + 1).some((line) => line.trim() !== "")) throw new PatchError(`text after "${END}"`);
  const operations: PatchOperation[] = [];
  let i = 1;
  /** The lines of the section that starts after line `i`, up to the next file header. */
  const sectionEnd = (from: number) => {
    let end = from;
    while (end < endAt && !isFileHeader(lines[end]!)) end++;
    return end;
  };
  while (i < endAt) {
    const line = lines[i]!;
    const lineNo = i + 1;
    if (line.trim() === "") {
      i++;
    } else if (line.startsWith(ADD)) {
      const end = sectionEnd(i + 1);
      operations.push({ type: "create_file", path: headerPath(line, ADD, lineNo), content: addedContent(lines.slice(i + 1, end), i + 2) });
      i = end;
    } else if (line.startsWith(DELETE)) {
      const end = sectionEnd(i + 1);
      const stray = lines.slice(i + 1, end).findIndex((body) => body.trim() !== "");
      if (stray !== -1) throw new PatchError(`line ${i + 2 + stray}: a deleted file has no content lines`);
      operations.push({ type: "delete_file", path: headerPath(line, DELETE, lineNo) });
      i = end;
    } else if (line.startsWith(UPDATE)) {
      const path = headerPath(line, UPDATE, lineNo);
      let bodyStart = i + 1;
      let moveTo: string | undefined;
      if (lines[bodyStart]?.startsWith(MOVE)) {
        moveTo = headerPath(lines[bodyStart]!, MOVE, bodyStart + 1);
        bodyStart++;
      }
      const end = sectionEnd(bodyStart);
      const hunks = parseHunks(lines.slice(bodyStart, end), bodyStart + 1);
      if (hunks.length === 0 && moveTo === undefined) throw new PatchError(`line ${lineNo}: "${UPDATE} ${path}" has no changes`);
      operations.push(moveTo === undefined ? { type: "update_file", path, hunks } : { type: "update_file", path, moveTo, hunks });
      i = end;
    } else {
      throw new PatchError(`line ${lineNo}: expected "${ADD}", "${UPDATE}", "${DELETE}" or "${END}", got "${clip(line)}"`);
    }
  }
  if (operations.length === 0) throw new PatchError("the patch has no file operations");
  return operations;
}

/** The content of an added file: every line starts with `+`; a bare empty line is an empty line. */
function addedContent(lines: string[], firstLineNo: number): string {
  // Blank lines between this section and the next header are layout, not content.
  let end = lines.length;
  while (end > 0 && lines[end - 1] === "") end--;
  const out = lines.slice(0, end).map((line, index) => {
    if (line === "") return "";
    if (!line.startsWith("+")) throw new PatchError(`line ${firstLineNo + index}: a line of an added file must start with "+", got "${clip(line)}"`);
    return line.slice(1);
  });
  // Files end with a newline, as they would if written line by line.
  return out.length === 0 ? "" : `${out.join("\n")}\n`;
}

/** The headerless diff of an `apply_patch_call` `create_file` operation: the new file's lines, each after `+`. */
export function parseCreateDiff(diff: string): string {
  return addedContent(linesOf(diff), 1);
}

/** The headerless diff of an `apply_patch_call` `update_file` operation: hunks only. */
export function parseUpdateDiff(diff: string): Hunk[] {
  const hunks = parseHunks(unfenced(linesOf(diff)), 1);
  if (hunks.length === 0) throw new PatchError("the diff has no changes");
  return hunks;
}

/** The hunks of an update's body (`firstLineNo` numbers its first line, for messages). */
function parseHunks(lines: string[], firstLineNo: number): Hunk[] {
  const hunks: Hunk[] = [];
  let current: Hunk = { anchors: [], lines: [], endOfFile: false };
  let anchorLine = 0;
  const close = () => {
    if (current.lines.length > 0) hunks.push(current);
    else if (current.anchors.length > 0 || current.endOfFile) throw new PatchError(`line ${anchorLine}: a hunk has no lines`);
    current = { anchors: [], lines: [], endOfFile: false };
  };
  lines.forEach((line, index) => {
    const lineNo = firstLineNo + index;
    if (line.startsWith("@@")) {
      if (current.lines.length > 0) close();
      anchorLine = lineNo;
      const anchor = anchorOf(line);
      if (anchor !== "") current.anchors.push(anchor);
      return;
    }
    if (line.trimEnd() === END_OF_FILE) {
      if (current.lines.length === 0) throw new PatchError(`line ${lineNo}: "${END_OF_FILE}" must follow a hunk's lines`);
      current.endOfFile = true;
      close();
      return;
    }
    if (line.startsWith("***")) throw new PatchError(`line ${lineNo}: unexpected "${clip(line)}" inside an update`);
    current.lines.push(patchLine(line, lineNo));
  });
  close();
  return hunks;
}

/** The anchor text of an `@@` line: after `@@ `; for a unified-diff header, what follows its ranges. */
function anchorOf(line: string): string {
  const unified = UNIFIED_RANGE.exec(line);
  if (unified) return unified[1]!.trim() === "" ? "" : unified[1]!;
  const text = line.startsWith("@@ ") ? line.slice(3) : line.slice(2);
  return text.trim() === "" ? "" : text;
}

function patchLine(line: string, lineNo: number): PatchLine {
  // An empty line stands for an empty context line (editors and models drop the lone space).
  if (line === "") return { kind: " ", text: "" };
  const kind = line[0];
  if (kind === " " || kind === "-" || kind === "+") return { kind, text: line.slice(1) };
  throw new PatchError(`line ${lineNo}: a hunk line must start with " " (context), "-" (remove) or "+" (add), got "${clip(line)}"`);
}

function clip(line: string): string {
  return line.length > 80 ? `${line.slice(0, 77)}...` : line;
}
