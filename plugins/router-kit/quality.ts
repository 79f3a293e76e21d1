/**
 * Default quality scores, for models whose config gives none for a task type. Without measurements the best
 * cheap signal is the price: within one catalog, dearer models are usually the stronger ones, so the default grows
 * with the model's price percentile (0.5 for the cheapest, 0.9 for the dearest). For simple tasks (chat,
 * extraction, summarization, translation) models differ less, so the spread is halved there and cheaper models
 * stay competitive. A few words in the model id nudge it (`coder` for coding, `reason`/`think` for reasoning).
 * Operators who know better write `quality` on the model entry (README "Routers").
 */

const SIMPLE = new Set(["chat", "extraction", "summarization", "translation"]);

const HINTS: ReadonlyArray<readonly [RegExp, string | undefined, number]> = [
  [/cod(?:e|er|ing)|devstral|starcoder/i, "coding", 0.08],
  [/reason|think|-r1\b|\bo[134]\b|qwq/i, "reasoning", 0.08],
  [/\b(?:large|pro|opus|ultra|max)\b/i, undefined, 0.03],
  [/\b(?:nano|tiny)\b/i, undefined, -0.03],
];

/** The default score 0–1 of model `id` for `task` (undefined: no task), given its catalog price percentile. */
export function defaultQuality(id: string, task: string | undefined, pricePercentile: number): number {
  let score = 0.5 + 0.4 * (pricePercentile / 100);
  if (task !== undefined && SIMPLE.has(task)) score = 0.7 + (score - 0.7) / 2;
  for (const [pattern, forTask, nudge] of HINTS) {
    if ((forTask === undefined || forTask === task) && pattern.test(id)) score += nudge;
  }
  return Math.round(Math.min(1, Math.max(0, score)) * 1000) / 1000;
}
