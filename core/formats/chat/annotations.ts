/**
 * Text annotations → chat `message.annotations`. The canonical citation is the Responses shape
 * `{type: url_citation, url, title, start_index, end_index, content?}`; chat nests it as
 * `{type: url_citation, url_citation: {url, title, content, start_index, end_index}}`. Other shapes (already chat's,
 * Anthropic's) pass untouched.
 */

/** A canonical url citation: `url` at the top level (chat's own shape nests it). */
function isCanonicalCitation(value: unknown): value is Record<string, unknown> & { url: string } {
  if (typeof value !== "object" || value === null) return false;
  const a = value as Record<string, unknown>;
  return a.type === "url_citation" && typeof a.url === "string";
}

/**
 * Converts one text part's annotations. `offset` is where the part's text starts in `message.content`, which
 * concatenates every text part of the reply: the canonical indexes are relative to their own part.
 */
export function chatAnnotations(annotations: readonly unknown[], offset: number): unknown[] {
  return annotations.map((annotation) => {
    if (!isCanonicalCitation(annotation)) return annotation;
    const citation: Record<string, unknown> = { url: annotation.url, title: annotation.title ?? "" };
    if (annotation.content !== undefined) citation.content = annotation.content;
    if (typeof annotation.start_index === "number") citation.start_index = annotation.start_index + offset;
    if (typeof annotation.end_index === "number") citation.end_index = annotation.end_index + offset;
    return { type: "url_citation", url_citation: citation };
  });
}
