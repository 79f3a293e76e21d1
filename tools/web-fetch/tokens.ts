/** Token counting for `max_content_tokens`, with the o200k_base tokenizer (gpt-tokenizer), loaded on first use. */

/** Cuts text to at most `maxTokens` tokens; encodes lazily, so a long text costs only the tokens up to the cut. */
export async function truncateToTokens(text: string, maxTokens: number): Promise<{ text: string; truncated: boolean }> {
  // Every token covers at least one UTF-8 byte: a text of no more bytes than the limit always fits.
  if (text.length <= maxTokens && Buffer.byteLength(text, "utf8") <= maxTokens) return { text, truncated: false };
  const { encodeGenerator, decode } = await import("gpt-tokenizer/encoding/o200k_base");
  const kept: number[] = [];
  // Text that looks like a special token (`<|endoftext|>`) is ordinary text here.
  for (const chunk of encodeGenerator(text, { disallowedSpecial: new Set() })) {
    for (const token of chunk) {
      if (kept.length === maxTokens) return { text: decode(kept).replace(/\uFFFD+$/, ""), truncated: true };
      kept.push(token);
    }
  }
  return { text, truncated: false };
}
