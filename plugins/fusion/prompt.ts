/**
 * What the fusion analyst reads: the drafts of the panel (drafts.ts), after the request's own system prompt, with the
 * instruction to compare them (agreement, contradictions, what only one saw, what all missed) and write the one
 * best answer; when the analysis call succeeded, its comparison comes with them.
 */
import type { Analysis } from "./analysis.ts";
import { draftsBlock, type Draft } from "./drafts.ts";

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
