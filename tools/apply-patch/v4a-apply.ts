/**
 * Applying an update's hunks to a file's text. Each hunk is located after the previous one (its `@@` anchors first,
 * then its context and removed lines as one block, ./v4a-seek.ts), so several hunks that look alike land in file
 * order; a hunk that is only found earlier in the file (a model that wrote hunks out of order) is still accepted as
 * long as no two hunks touch the same lines. All hunks are located before anything changes: a patch applies whole or
 * not at all. The file keeps its line endings (CRLF stays CRLF) and its final newline, or lack of one; context lines
 * keep the file's own text, whatever whitespace the patch gave them.
 */
import { seekAnchor, seekBlock } from "./v4a-seek.ts";
import { type Hunk, PatchError } from "./v4a-types.ts";

interface Edit {
  start: number;
  /** Lines of the file it replaces. */
  length: number;
  lines: string[];
  hunk: number;
}

/** CRLF when the file's first line break is one (mixed files are rare; the first line decides, as editors do). */
function usesCrlf(text: string): boolean {
  const at = text.indexOf("\n");
  return at > 0 && text[at - 1] === "\r";
}

const isBlankContext = (line: Hunk["lines"][number]) => line.kind === " " && line.text.trim() === "";

/** The hunk without blank context lines at its edges (often layout, not lines the file has there). */
function withoutBlankEdges(hunk: Hunk): Hunk | undefined {
  let start = 0;
  let end = hunk.lines.length;
  while (start < end && isBlankContext(hunk.lines[start]!)) start++;
  while (end > start && isBlankContext(hunk.lines[end - 1]!)) end--;
  if (start === 0 && end === hunk.lines.length) return undefined;
  return { ...hunk, lines: hunk.lines.slice(start, end) };
}

/** Where the hunk's anchors put the search, and whether any of them was found. */
function afterAnchors(lines: readonly string[], hunk: Hunk, from: number, label: string): { from: number; anchored: boolean } {
  let anchored = false;
  for (const anchor of hunk.anchors) {
    const at = seekAnchor(lines, anchor, from);
    if (at !== -1) {
      from = at + 1;
      anchored = true;
    } else if (seekAnchor(lines, anchor, 0) !== -1) {
      anchored = true; // an earlier hunk already went past it (two hunks in one function): search on from here
    } else if (hunk.anchors.length > 1) {
      // Nested anchors are a path to the place; a missing step means the model is looking at another file version.
      throw new PatchError(`${label}: the anchor "@@ ${anchor.trim()}" was not found`);
    }
    // A single anchor that is nowhere is only a hint; the hunk's own lines still have to match.
  }
  return { from, anchored };
}

/** The edit for hunk `index`, found from line `cursor` on. */
function locate(lines: readonly string[], hunk: Hunk, cursor: number, label: string, index: number): Edit {
  const { from, anchored } = afterAnchors(lines, hunk, cursor, label);
  const old = hunk.lines.filter((line) => line.kind !== "+").map((line) => line.text);
  if (old.length === 0) {
    // Only additions: right after the anchor, else at the end of the file.
    const at = anchored && !hunk.endOfFile ? from : lines.length;
    return { start: at, length: 0, lines: hunk.lines.map((line) => line.text), hunk: index };
  }
  for (const candidate of [hunk, withoutBlankEdges(hunk)]) {
    if (candidate === undefined) continue;
    const block = candidate.lines.filter((line) => line.kind !== "+").map((line) => line.text);
    if (block.length === 0) continue;
    let at = seekBlock(lines, block, from, hunk.endOfFile);
    if (at === -1) at = seekBlock(lines, block, 0, hunk.endOfFile);
    if (at === -1) continue;
    const out: string[] = [];
    let k = at;
    for (const line of candidate.lines) {
      if (line.kind === " ") out.push(lines[k++]!);
      else if (line.kind === "-") k++;
      else out.push(line.text);
    }
    return { start: at, length: block.length, lines: out, hunk: index };
  }
  const shown = old.slice(0, 12).map((line) => `  ${line}`);
  if (old.length > 12) shown.push(`  … (${old.length - 12} more)`);
  const where = hunk.endOfFile ? " at the end of the file" : "";
  throw new PatchError(`${label}: these context/removed lines were not found${where} (read the file again and retry):\n${shown.join("\n")}`);
}

/** `original` with `hunks` applied; a PatchError names the hunk (1-based) that does not fit. */
export function applyHunks(original: string, hunks: readonly Hunk[], path = "the file"): string {
  const crlf = usesCrlf(original);
  const text = crlf ? original.replace(/\r\n/g, "\n") : original;
  // An empty file gets the final newline a file written line by line has.
  const finalNewline = text === "" || text.endsWith("\n");
  const lines = text === "" ? [] : text.split("\n");
  if (text.endsWith("\n")) lines.pop();
  const edits: Edit[] = [];
  let cursor = 0;
  hunks.forEach((hunk, index) => {
    const edit = locate(lines, hunk, cursor, `hunk ${index + 1} of ${path}`, index);
    edits.push(edit);
    cursor = edit.start + edit.length;
  });
  edits.sort((a, b) => a.start - b.start || a.hunk - b.hunk);
  for (let i = 1; i < edits.length; i++) {
    const before = edits[i - 1]!;
    const edit = edits[i]!;
    if (before.start + before.length > edit.start) {
      throw new PatchError(`hunks ${before.hunk + 1} and ${edit.hunk + 1} of ${path} change the same lines`);
    }
  }
  const out: string[] = [];
  let position = 0;
  for (const edit of edits) {
    out.push(...lines.slice(position, edit.start), ...edit.lines);
    position = edit.start + edit.length;
  }
  out.push(...lines.slice(position));
  const joined = out.join("\n") + (finalNewline && out.length > 0 ? "\n" : "");
  return crlf ? joined.replace(/\n/g, "\r\n") : joined;
}
