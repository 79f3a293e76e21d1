/**
 * The V4A patch format (OpenAI's apply_patch): a patch is a list of file operations; an update is a list of hunks,
 * each located by optional `@@` anchor lines and by its context and removed lines, then rewritten with its context
 * and added lines. Parsing (./v4a-parse.ts) and applying (./v4a-apply.ts) meet on these types.
 */

export interface PatchLine {
  /** ` ` context (kept), `-` removed, `+` added. */
  kind: " " | "-" | "+";
  text: string;
}

export interface Hunk {
  /** `@@ <text>` lines before the hunk, outermost first (a class, then a method in it): where to start looking. */
  anchors: string[];
  lines: PatchLine[];
  /** `*** End of File` followed it: its lines are at the end of the file. */
  endOfFile: boolean;
}

export type PatchOperation =
  | { type: "create_file"; path: string; content: string }
  | { type: "update_file"; path: string; moveTo?: string; hunks: Hunk[] }
  | { type: "delete_file"; path: string };

/** A patch that cannot be parsed or applied; its message is meant for the model that wrote the patch. */
export class PatchError extends Error {
  override readonly name = "PatchError";
}
