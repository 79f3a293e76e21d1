/**
 * The panel's drafts as both fusion calls read them: the analysis call (analysis.ts) compares them, the analyst
 * (prompt.ts) answers from them. Each draft is cut at 24,000 characters so a panel of eight stays within a normal
 * context window.
 */
export interface Draft {
  model: string;
  text: string;
}

const DRAFT_CHARS = 24_000;

/** The drafts, each in a `<draft index model>` element. */
export function draftsBlock(drafts: readonly Draft[]): string {
  const lines: string[] = [];
  drafts.forEach((draft, index) => {
    const text = draft.text.length > DRAFT_CHARS ? `${draft.text.slice(0, DRAFT_CHARS)}\n[…draft cut]` : draft.text;
    lines.push(`<draft index="${index + 1}" model="${draft.model}">`, text, "</draft>", "");
  });
  return lines.join("\n").trimEnd();
}
