/** The logger masks secrets in one pass without touching objects that hold none. */
import { describe, expect, test } from "bun:test";
import { Writable } from "node:stream";
import { createLogger, redactSecrets } from "../../../core/logger.ts";

describe("redactSecrets", () => {
  test("returns the same object when nothing is secret", () => {
    const line = { id: "gen-1", key: "abcd1234", model: "m", status: 200 };
    expect(redactSecrets(line)).toBe(line);
  });

  test("masks secret-named fields at the top and one level down, without mutating the input", () => {
    const input = { authorization: "Bearer x", headers: { "x-api-key": "k", accept: "json" }, api_key: null };
    const out = redactSecrets(input);
    expect(out).toEqual({ authorization: "[redacted]", headers: { "x-api-key": "[redacted]", accept: "json" }, api_key: null });
    expect(input.authorization).toBe("Bearer x");
  });

  test("masks our API keys inside any string", () => {
    const out = redactSecrets({ msg: "bad key sk-gw-v1-AbC_def-123456 given", nested: { note: "sk-gw-v1-zzzzzzzz" } });
    expect(out).toEqual({ msg: "bad key [redacted] given", nested: { note: "[redacted]" } });
  });
});

test("a logger built by createLogger never writes a key", () => {
  let written = "";
  const sink = new Writable({ write: (chunk, _e, done) => void ((written += String(chunk)), done()) });
  const logger = createLogger("info", sink);
  logger.info({ authorization: "Bearer sk-gw-v1-secretsecret", detail: "sk-gw-v1-secretsecret" }, "hello");
  expect(written).toContain('"msg":"hello"');
  expect(written).not.toContain("secretsecret");
});
