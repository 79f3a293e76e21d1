/** Config `idempotency.max_reply_bytes` (README "Idempotent requests"): read from the file, checked, defaulted. */
import { expect, test } from "bun:test";
import { buildConfig, validateConfigFile } from "../../../core/config/load.ts";
import { DEFAULT_MAX_REPLY_BYTES } from "../../../core/idempotency/recording.ts";

test("the file's value is the cap; without it the recording's 4 MB default applies", () => {
  expect(buildConfig(validateConfigFile({ idempotency: { max_reply_bytes: 65_536 } }), {}, "/").idempotency).toEqual({ maxReplyBytes: 65_536 });
  expect(buildConfig(validateConfigFile({}), {}, "/").idempotency).toBeUndefined();
  expect(DEFAULT_MAX_REPLY_BYTES).toBe(4 * 1024 * 1024);
});

test.each([
  [{ max_reply_bytes: 1_000 }, "idempotency.max_reply_bytes"],
  [{ max_reply_bytes: 1.5e6 + 0.5 }, "idempotency.max_reply_bytes"],
  [{ max_reply_bytes: "4MB" }, "idempotency.max_reply_bytes"],
  [{ max_bytes: 4096 }, "idempotency.max_bytes"],
])("%p is refused, naming the field", (idempotency, field) => {
  expect(() => validateConfigFile({ idempotency })).toThrow(`invalid config field "${field}"`);
});
