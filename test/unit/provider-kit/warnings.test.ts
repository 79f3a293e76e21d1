/** core/provider-kit/warnings.ts and ProviderCall.warn's list (core/model/warnings.ts addWarning). */
import { describe, expect, test } from "bun:test";
import { addWarning, type Warning } from "../../../core/model/warnings.ts";
import { reporting, translate, warnUnsupported } from "../../../core/provider-kit/warnings.ts";
import { canonicalRequest } from "../providers/helpers.ts";

/** A call whose `warn` adds to a list, as an attempt's does. */
function reportingCall() {
  const reported: Warning[] = [];
  return { request: canonicalRequest(), warn: (warning: Warning) => addWarning(reported, warning), reported };
}

describe("call.warn's list", () => {
  test("an unsupported_field for a field already listed is dropped; other codes and fields are kept", () => {
    const list: Warning[] = [];
    addWarning(list, { code: "unsupported_field", field: "cache_control", message: "a" });
    addWarning(list, { code: "unsupported_field", field: "cache_control", message: "b" });
    addWarning(list, { code: "approximated", field: "cache_control", message: "c" });
    addWarning(list, { code: "approximated", field: "cache_control", message: "d" });
    addWarning(list, { code: "unsupported_field", field: "top_k", message: "e" });
    expect(list.map((w) => w.message)).toEqual(["a", "c", "d", "e"]);
  });
});

describe("translate", () => {
  test("the builder gets a copy with a list of its own; what it recorded is reported, the call's request is untouched", () => {
    const call = reportingCall();
    call.request.warnings.push({ code: "unknown_field", field: "x", message: "from the decoder" });
    const body = translate(call, (request) => {
      expect(request).not.toBe(call.request);
      expect(request.warnings).toEqual([]);
      warnUnsupported(request.warnings, "top_k", "not sent");
      warnUnsupported(request.warnings, "top_k", "not sent again");
      return { model: request.model };
    });
    expect(body).toEqual({ model: call.request.model });
    expect(call.reported).toEqual([{ code: "unsupported_field", field: "top_k", message: "not sent" }]);
    expect(call.request.warnings.map((w) => w.field)).toEqual(["x"]);
  });
});

describe("reporting and warnUnsupported(call, …)", () => {
  test("a reply's translation reports through the call, once per field", () => {
    const call = reportingCall();
    const parts = reporting(call, (warnings) => {
      warnUnsupported(warnings, "content.video", "dropped");
      return ["text"];
    });
    warnUnsupported(call, "content.video", "dropped again");
    warnUnsupported(call, "response.executableCode", "dropped");
    expect(parts).toEqual(["text"]);
    expect(call.reported.map((w) => [w.code, w.field, w.message])).toEqual([
      ["unsupported_field", "content.video", "dropped"],
      ["unsupported_field", "response.executableCode", "dropped"],
    ]);
  });
});
