import { describe, expect, test } from "bun:test";
import { citationsIn, sourcesOf } from "../../../../core/pipeline/agent/citations.ts";

const sources = [
  { url: "https://example.com/a", title: "A page", snippet: "about a" },
  { url: "https://example.org/b", title: "B page" },
];

describe("citationsIn", () => {
  test("a bare URL is cited over its own span, a Markdown link over the whole link, in text order", () => {
    const text = "See [the B page](https://example.org/b) and https://example.com/a.";
    const citations = citationsIn(text, sources);
    expect(citations.map((c) => [c.url, text.slice(c.start_index, c.end_index)])).toEqual([
      ["https://example.org/b", "[the B page](https://example.org/b)"],
      ["https://example.com/a", "https://example.com/a"],
    ]);
    expect(citations[1]).toMatchObject({ type: "url_citation", title: "A page", content: "about a" });
  });

  test("text naming no source has no citations; a URL cited twice gets two", () => {
    expect(citationsIn("nothing here", sources)).toEqual([]);
    expect(citationsIn("https://example.com/a https://example.com/a", sources)).toHaveLength(2);
  });
});

describe("sourcesOf", () => {
  test("a search's results and a fetched page are sources; anything else is not", () => {
    expect(sourcesOf({ query: "q", results: [{ url: "https://x.test/", title: "X", snippet: "s" }, { title: "no url" }] })).toEqual([{ url: "https://x.test/", title: "X", snippet: "s" }]);
    expect(sourcesOf({ url: "https://y.test/", title: "Y", content: "..." })).toEqual([{ url: "https://y.test/", title: "Y" }]);
    expect(sourcesOf({ datetime: "now" })).toEqual([]);
    expect(sourcesOf(null)).toEqual([]);
  });
});
