/**
 * The matching view (core/guardrails/detectors/normalize.ts) and how streamed holding reads characters
 * (detectors/hold.ts): fullwidth forms, invisible characters and the kinds of space are read as their plain forms,
 * and every finding maps back to exactly the original characters it came from.
 */
import { describe, expect, test } from "bun:test";
import { BUILTIN_DETECTORS } from "../../../../core/guardrails/detectors/builtins.ts";
import { lastTokensStart, trailingRunStart } from "../../../../core/guardrails/detectors/hold.ts";
import { matchingView, originalSpan } from "../../../../core/guardrails/detectors/normalize.ts";

const found = (slug: string, text: string) => BUILTIN_DETECTORS.get(slug)!.find(text).map((f) => text.slice(f.start, f.end));

describe("matching view", () => {
  test("plain ASCII is its own view: nothing copied, no map", () => {
    const text = "Call 555-123-4567, mail jane@example.com.";
    expect(matchingView(text)).toEqual({ text });
  });

  test("fullwidth forms fold, invisibles vanish, spaces and hyphens are read plainly; spans map back", () => {
    const text = "x \uff14\uff11\u200b1\u00a01\u2011y";
    const view = matchingView(text);
    expect(view.text).toBe("x 411 1-y");
    // "411" in the view is "４１\u200b1" in the original.
    expect(originalSpan(view, 2, 5)).toEqual({ start: 2, end: 6 });
  });

  test("built-ins report the original characters of a disguised match, not of the view", () => {
    expect(found("email", "write jane\u200b.doe\uff20example.com now")).toEqual(["jane\u200b.doe\uff20example.com"]);
    expect(found("credit-card", "card \uff14\uff11\uff11\uff11 1111 1111 1111.")).toEqual(["\uff14\uff11\uff11\uff11 1111 1111 1111"]);
    expect(found("ssn", "ssn 123\u201145\u20116789 ok")).toEqual(["123\u201145\u20116789"]);
    expect(found("secrets", "key AKIA\u200bIOSFODNN7EXAMPLE ok")).toEqual(["AKIA\u200bIOSFODNN7EXAMPLE"]);
  });

  test("a card grouped with dots is one, and mixed separators are not", () => {
    expect(found("credit-card", "card 4111.1111.1111.1111 ok")).toEqual(["4111.1111.1111.1111"]);
    expect(found("credit-card", "card 4111.1111 1111-1111 ok")).toEqual([]);
  });
});

describe("holding reads characters as the view does", () => {
  const cardChar = (c: number) => (c >= 48 && c <= 57) || c === 32 || c === 45 || c === 46;

  test("a zero-width space or a non-breaking space does not end a card's run of digits", () => {
    const text = "card:4111\u00a01111\u200b 11";
    expect(trailingRunStart(text, cardChar, 64)).toBe(5);
  });

  test("every kind of space separates tokens; a word spelled out letter by letter may count as one", () => {
    expect(lastTokensStart("a b\u2009c d", 2, 100)).toBe(4);
    expect(lastTokensStart("say i g n o r e", 2, 100, true)).toBe(0);
  });
});
