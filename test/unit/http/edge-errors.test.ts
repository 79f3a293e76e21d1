/** Which error of a union failure the 400 names (mostSpecific). */
import { describe, expect, test } from "bun:test";
import { mostSpecific } from "../../../core/http/edge-errors.ts";

type E = { path: string; message: string; schema?: unknown };

/** A variant's errors as the schema checker yields them: lazily, possibly one per element of a huge value. */
function* errorsOf(first: E[], thenForever?: E): Generator<E> {
  yield* first;
  if (thenForever) for (;;) yield thenForever;
}

describe("mostSpecific", () => {
  test("the branch whose own literal failed loses, even when its first error is deeper", () => {
    const union = {
      path: "/messages/0",
      message: "Expected union value",
      errors: [
        errorsOf([{ path: "/messages/0/name", message: "Expected string" }]),
        errorsOf([
          { path: "/messages/0/tool_call_id", message: "Expected required property" },
          { path: "/messages/0/role", message: "Expected 'tool'", schema: { const: "tool" } },
        ]),
      ],
    };
    expect(mostSpecific(union)?.path).toBe("/messages/0/name");
  });

  test("a branch yielding errors without end is read only a few errors deep (it used to be read to the end)", () => {
    const union = {
      path: "/input",
      message: "Expected union value",
      errors: [
        errorsOf([{ path: "/input", message: "Expected string" }]),
        errorsOf([], { path: "/input/0/content", message: "Expected string" }),
      ],
    };
    expect(mostSpecific(union)?.path).toBe("/input/0/content");
  });
});
