/** Token counting for `max_content_tokens`, with the gateway's o200k_base count (linear time, in slices), loaded on first use. */
import { tokenizer } from "../../core/sdk/index.ts";

/**
 * Cuts text to at most `maxTokens` tokens. Reads only the tokens up to the cut, so a 5 MB page costs what its kept
 * part does; a run of over 1,000 characters without a break (a page of `aaaa…`) is cut by characters, at one token
 * per byte, never by the library's quadratic BPE.
 */
export async function truncateToTokens(text: string, maxTokens: number): Promise<{ text: string; truncated: boolean }> {
  // Every token covers at least one UTF-8 byte: a text of no more bytes than the limit always fits.
  if (text.length <= maxTokens && Buffer.byteLength(text, "utf8") <= maxTokens) return { text, truncated: false };
  const kept = await (await tokenizer()).sliced().head(text, maxTokens);
  return kept.length === text.length ? { text, truncated: false } : { text: kept, truncated: true };
}
