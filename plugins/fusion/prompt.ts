/**
 * What the fusion analyst reads: the drafts of the panel, after the request's own system prompt, with the
 * instruction to compare them (agreement, contradictions, what only one saw, what all missed) and write the one
 * best answer; when the analysis call succeeded, its comparison comes with them. Each draft is cut at 24,000
 * characters so a panel of eight stays within a normal context window.
 */
import type { Analysis } from "./analysis.ts";

export interface Draft {
  model: string;
  text: string;
}

const DRAFT_CHARS = 24_000;

export function analystPrompt(drafts: readonly Draft[], analysis?: Analysis): string {
  const lines = [
    `You are the analyst of a panel: ${drafts.length} model(s) answered the user's latest request independently (some may have searched the web). Their drafts follow.`,
    "Compare them: where they agree, where they contradict each other (decide which is right and why), what only one of them noticed, and what all of them missed.",
    "Then write the single best final answer to the user, in the format the user asked for. Do not mention the panel, the drafts or the models unless the user asks.",
    "",
  ];
  if (analysis) lines.push("Your comparison of the drafts, already made:", "<analysis>", JSON.stringify(analysis), "</analysis>", "");
  return (lines.join("\n") + draftsBlock(drafts)).trimEnd();
}

/** The drafts, each in a `<draft index model>` element. */
export function draftsBlock(drafts: readonly Draft[]): string {
  const lines: string[] = [];
  drafts.forEach((draft, index) => {
    const text = draft.text.length > DRAFT_CHARS ? `${draft.text.slice(0, DRAFT_CHARS)}\n[…draft cut]` : draft.text;
    lines.push(`<draft index="${index + 1}" model="${draft.model}">`, text, "</draft>", "");
  });
  return lines.join("\n").trimEnd();
}
