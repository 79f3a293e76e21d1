import { expect, test } from "bun:test";
import { warnUnusedTrace } from "../../../core/observe/tracing/unused-trace.ts";
import { canonicalRequest } from "../pipeline/helpers.ts";

test("trace is warned only when tracing is off (nothing reads it then)", () => {
  const on = canonicalRequest({ trace: { trace_name: "checkout" } });
  warnUnusedTrace(on, true);
  expect(on.warnings).toEqual([]);

  const off = canonicalRequest({ trace: { trace_name: "checkout" } });
  warnUnusedTrace(off, false);
  expect(off.warnings).toEqual([{ code: "unsupported_field", field: "trace", message: "Tracing is off on this gateway; `trace` was not recorded" }]);

  const none = canonicalRequest();
  warnUnusedTrace(none, false);
  expect(none.warnings).toEqual([]);
});
