/** core/jobs/documents/html-shape.ts: the depth and node count of the tree linkedom would build, measured without building it. */
import { expect, test } from "bun:test";
import { measureHtml } from "../../../../core/jobs/documents/html-shape.ts";

const caps = { maxDepth: 8, maxNodes: 50 };

test("within the caps: the shape, with whether the page has a body", () => {
  expect(measureHtml("<html><body><div><p>one</p><p>two</p></div></body></html>", caps)).toEqual({ hasBody: true });
  expect(measureHtml("bare words", caps)).toEqual({ hasBody: false });
});

test("one level too deep is refused, naming the cap; exactly at it passes", () => {
  const nested = (depth: number) => `${"<div>".repeat(depth)}x${"</div>".repeat(depth)}`;
  expect(measureHtml(nested(8), caps)).toEqual({ hasBody: false });
  expect(measureHtml(nested(9), caps)).toEqual({
    ok: false,
    reason: "too_deep",
    message: "is nested more than 8 levels deep (the cap is documents.html.max_depth)",
    cap: "documents.html.max_depth",
  });
});

test("implied end tags close what a browser closes: unclosed paragraphs and list items are siblings, not nesting", () => {
  expect(measureHtml(`<body>${"<p>para".repeat(20)}</body>`, { maxDepth: 3, maxNodes: 1_000 })).toEqual({ hasBody: true });
  expect(measureHtml(`<ul>${"<li>item".repeat(20)}</ul>`, { maxDepth: 3, maxNodes: 1_000 })).toEqual({ hasBody: false });
  // Void elements never open a level.
  expect(measureHtml(`${"<br><img src=x>".repeat(20)}`, { maxDepth: 1, maxNodes: 1_000 })).toEqual({ hasBody: false });
});

test("elements, text runs and comments count as nodes: one past the cap is refused", () => {
  // 25 paragraphs, each an element and a text node: 50 nodes.
  expect(measureHtml("<p>a</p>".repeat(25), caps)).toEqual({ hasBody: false });
  expect(measureHtml("<p>a</p>".repeat(25) + "<!-- one more -->", caps)).toMatchObject({ reason: "too_many_nodes", cap: "documents.html.max_nodes" });
});
