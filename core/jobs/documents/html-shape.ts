/**
 * The shape of an HTML page, measured before any DOM is built: its nesting depth and its node count (elements, text
 * runs, comments). Readability and Turndown walk the tree recursively and, on some shapes, quadratically: 100,000
 * nested `<div>` never finished, 20,000 overflowed the stack, 150,000 paragraphs took 17 s and 1.25 GB. The count
 * uses htmlparser2, the tokenizer linkedom builds its DOM from, with linkedom's options, so the tree measured is the
 * tree that would be built (implied end tags included); it keeps nothing and stops at the first cap passed.
 */
import { Parser } from "htmlparser2";
import type { HtmlCaps } from "../../config/documents.ts";
import { overCap } from "./failures.ts";
import type { DocumentFailure } from "./types.ts";

export interface HtmlShape {
  /** Whether the page has a `<body>`: linkedom puts nothing in the document's body otherwise. */
  hasBody: boolean;
}

class OverCap extends Error {
  constructor(readonly failure: DocumentFailure) {
    super(failure.message);
  }
}

export function measureHtml(html: string, caps: HtmlCaps): HtmlShape | DocumentFailure {
  let depth = 0;
  let nodes = 0;
  let hasBody = false;
  const count = () => {
    if (++nodes > caps.maxNodes) throw new OverCap(overCap("too_many_nodes", "has more than {n} elements and text nodes", caps.maxNodes, "documents.html.max_nodes"));
  };
  const parser = new Parser(
    {
      onopentag(name) {
        count();
        if (name === "body") hasBody = true;
        if (++depth > caps.maxDepth) throw new OverCap(overCap("too_deep", "is nested more than {n} levels deep", caps.maxDepth, "documents.html.max_depth"));
      },
      onclosetag() {
        depth--;
      },
      ontext: count,
      oncomment: count,
    },
    { lowerCaseAttributeNames: false, decodeEntities: true, xmlMode: false },
  );
  try {
    parser.write(html);
    parser.end();
  } catch (error) {
    if (error instanceof OverCap) return error.failure;
    throw error;
  }
  return { hasBody };
}
