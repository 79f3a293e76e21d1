import { describe, expect, test } from "bun:test";
import { areaOf, sourcePath, summarizeProfile, type CpuProfile } from "../../../bench/profile-cpu.ts";

const ROOT = "/repo";
const frame = (functionName: string, url: string, lineNumber = 0) => ({ functionName, url, lineNumber, columnNumber: 0 });

/** root › handler (core/http/front-door.ts) › postJson (providers/shared/http.ts) › native fetch; root › native (anonymous). */
function profile(): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: frame("(root)", ""), children: [2, 5] },
      { id: 2, callFrame: frame("fetch", `file://${ROOT}/core/http/front-door.ts`, 49), children: [3] },
      { id: 3, callFrame: frame("postJson", `file://${ROOT}/providers/shared/http.ts`, 30), children: [4] },
      { id: 4, callFrame: frame("fetch", "[native code]") },
      { id: 5, callFrame: frame("", "") },
    ],
    startTime: 1_000_000,
    endTime: 1_010_000,
    // Samples at 1,001,000 (4), 1,002,000 (4), 1,003,000 (3), 1,004,000 (5), 1,009,000 (2: outside the window).
    samples: [4, 4, 3, 5, 2],
    timeDeltas: [1000, 1000, 1000, 1000, 5000],
  };
}

describe("the CPU profile summary", () => {
  test("a native call is charged to the nearest frame of our code, by area", () => {
    const s = summarizeProfile(profile(), ROOT, 1_000_000, 1_005_000);
    expect(s.samples).toBe(4);
    expect(s.areas).toEqual([
      { area: "provider adapter", samples: 3 },
      { area: "runtime: native code entered from the event loop, no caller in our code", samples: 1 },
    ]);
    expect(s.hot[0]).toEqual({ name: "fetch", where: "native, from providers/shared/http.ts:31", area: "provider adapter", samples: 2 });
    expect(s.files[0]).toEqual({ path: "providers/shared/http.ts", samples: 3 });
  });

  test("only the samples inside the window count", () => {
    const all = summarizeProfile(profile(), ROOT, 0, Number.MAX_SAFE_INTEGER);
    expect(all.samples).toBe(5);
    expect(all.areas.find((a) => a.area === "edge: Elysia and the HTTP front door")?.samples).toBe(1);
    expect(summarizeProfile(profile(), ROOT, 1_003_500, 1_005_000).samples).toBe(1);
  });

  test("source paths: the checkout's files, packages by their node_modules path, nothing for the runtime's own", () => {
    expect(sourcePath(`file://${ROOT}/core/auth/authenticate.ts`, ROOT)).toBe("core/auth/authenticate.ts");
    expect(sourcePath("file:///elsewhere/node_modules/elysia/dist/index.mjs", ROOT)).toBe("node_modules/elysia/dist/index.mjs");
    expect(sourcePath("node:fs", ROOT)).toBeUndefined();
    expect(sourcePath("[native code]", ROOT)).toBeUndefined();
    expect(sourcePath("/tmp/bundle/gateway.js", ROOT)).toBeUndefined();
    expect(areaOf("core/http/auth-first.ts")).toBe("auth");
    expect(areaOf("core/http/body-read.ts")).toBe("body read");
    expect(areaOf("core/http/render.ts")).toBe("edge: Elysia and the HTTP front door");
    expect(areaOf("node_modules/sonic-boom/index.js")).toBe("request log");
    expect(areaOf("bun:sqlite")).toBe("store writes (ledger, generation records)");
  });
});
