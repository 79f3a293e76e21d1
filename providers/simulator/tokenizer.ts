/**
 * The simulator's documented tokenizer. It is deliberately trivial so tests and benchmarks can predict usage exactly:
 *
 * - text: one token per whitespace-separated word (`"Simulated reply: a b"` is 4 tokens);
 * - prompt tokens: the words of every string each message carries (text, reasoning, refusal, tool-call name and
 *   arguments, tool-result text; images and files count 0), plus 4 per message (the system prompt is one message);
 *   tool definitions are not counted;
 * - completion tokens: reasoning words + reply words, or for a tool call the words of its name and of its arguments
 *   text (compact JSON, so usually 1 + 1).
 */

/** Fixed overhead per message, like the role/separator tokens of real chat templates. */
export const TOKENS_PER_MESSAGE = 4;

/** Splits text into its tokens (whitespace-separated words). */
export function words(text: string): string[] {
  return text.split(/\s+/).filter((w) => w !== "");
}

/** Number of tokens in `text`. */
export function countTokens(text: string): number {
  return words(text).length;
}

/** Prompt tokens of messages given as the strings each carries. */
export function countPromptTokens(messages: ReadonlyArray<{ texts: readonly string[] }>): number {
  let total = 0;
  for (const message of messages) {
    total += TOKENS_PER_MESSAGE;
    for (const text of message.texts) total += countTokens(text);
  }
  return total;
}
