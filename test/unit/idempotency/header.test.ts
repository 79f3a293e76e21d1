/** The `Idempotency-Key` header's bounds: 1 to 255 printable ASCII characters, else a 400 naming the header. */
import { expect, test } from "bun:test";
import { isGatewayError } from "../../../core/errors.ts";
import { idempotencyKeyOf } from "../../../core/idempotency/header.ts";

const headers = (key?: string) => new Headers(key === undefined ? {} : { "idempotency-key": key });

test("no header: no key", () => {
  expect(idempotencyKeyOf(headers())).toBeUndefined();
});

test("printable ASCII up to 255 characters is the key, as sent", () => {
  expect(idempotencyKeyOf(headers("stainless-node-retry-1f0c"))).toBe("stainless-node-retry-1f0c");
  expect(idempotencyKeyOf(headers("k ~".repeat(85)))).toHaveLength(255);
});

test.each([["empty", ""], ["256 characters", "k".repeat(256)], ["latin-1", "clé"], ["a tab", "a\tb"]])("%s: 400 naming the header", (_, key) => {
  let thrown: unknown;
  try {
    idempotencyKeyOf(headers(key));
  } catch (error) {
    thrown = error;
  }
  expect(isGatewayError(thrown)).toBe(true);
  expect(thrown).toMatchObject({ status: 400, type: "invalid_request", metadata: { param: "Idempotency-Key" } });
});
