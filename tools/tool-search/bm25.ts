/** Okapi BM25 ranking of short documents (the text of deferred tools) for `service:tool_search` in `bm25` mode. */

/** Words of `text`, lower-cased: split on anything not a letter or digit, and at camelCase humps (`getWeather`). */
export function tokenize(text: string): string[] {
  return text
    .replace(/(\p{Ll}|\p{N})(\p{Lu})/gu, "$1 $2")
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
}

export interface Ranked {
  /** Index of the document in the input. */
  index: number;
  score: number;
}

/**
 * Documents sharing at least one word with the query, best first (ties keep input order). Standard parameters
 * (k1 = 1.2, b = 0.75) and the always-positive IDF `ln(1 + (N − df + 0.5) / (df + 0.5))`; each distinct query word
 * counts once.
 */
export function bm25(query: string, documents: readonly string[], k1 = 1.2, b = 0.75): Ranked[] {
  const terms = [...new Set(tokenize(query))];
  if (terms.length === 0 || documents.length === 0) return [];
  const docs = documents.map((d) => {
    const counts = new Map<string, number>();
    const tokens = tokenize(d);
    for (const token of tokens) counts.set(token, (counts.get(token) ?? 0) + 1);
    return { counts, length: tokens.length };
  });
  const averageLength = docs.reduce((n, d) => n + d.length, 0) / docs.length || 1;
  const idf = new Map(terms.map((term) => {
    const df = docs.filter((d) => d.counts.has(term)).length;
    return [term, Math.log(1 + (docs.length - df + 0.5) / (df + 0.5))] as const;
  }));
  const ranked: Ranked[] = [];
  docs.forEach((doc, index) => {
    let score = 0;
    for (const term of terms) {
      const tf = doc.counts.get(term);
      if (!tf) continue;
      score += idf.get(term)! * ((tf * (k1 + 1)) / (tf + k1 * (1 - b + (b * doc.length) / averageLength)));
    }
    if (score > 0) ranked.push({ index, score });
  });
  return ranked.sort((x, y) => y.score - x.score || x.index - y.index);
}
