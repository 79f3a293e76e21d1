/**
 * Deeply nested JSON is refused before anything parses or validates it: 20,000 nested arrays in a
 * message used to stop the whole process for seconds on every inference endpoint and on preset creation. Now: a 400
 * in milliseconds, and `/health` answers meanwhile. A wide body that fails validation is answered quickly too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
beforeAll(async () => void (gw = await startTestGateway()));
afterAll(async () => gw.close());

const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);

/** Each route with the nested value where a client would put content. */
const ROUTES: ReadonlyArray<{ path: string; key?: string; body: (content: string) => string }> = [
  { path: "/chat/completions", body: (c) => `{"model":"simulator/small","messages":[{"role":"user","content":${c}}]}` },
  { path: "/messages", body: (c) => `{"model":"simulator/small","max_tokens":10,"messages":[{"role":"user","content":${c}}]}` },
  { path: "/responses", body: (c) => `{"model":"simulator/small","input":[{"role":"user","content":${c}}]}` },
  { path: "/presets/deep/chat/completions", key: ADMIN_KEY, body: (c) => `{"model":"simulator/small","messages":[{"role":"user","content":${c}}]}` },
];

/** The slowest `/health` answer while `work` runs (polled every 20 ms). */
async function healthDuring<T>(work: () => Promise<T>): Promise<{ result: T; slowestHealthMs: number }> {
  let slowest = 0;
  let done = false;
  const poll = (async () => {
    while (!done) {
      const started = performance.now();
      await gw.request("/health", { key: null });
      slowest = Math.max(slowest, performance.now() - started);
      await Bun.sleep(20);
    }
  })();
  await Bun.sleep(30);
  const result = await work();
  done = true;
  await poll;
  return { result, slowestHealthMs: slowest };
}

const post = (path: string, body: string, key?: string) =>
  gw.request(path, { method: "POST", body, headers: { "content-type": "application/json" }, ...(key ? { key } : {}) });

describe("20,000 nested arrays", () => {
  for (const route of ROUTES) {
    test(`${route.path}: 400 naming the depth limit, in milliseconds; /health stays responsive`, async () => {
      const started = performance.now();
      const { result: res, slowestHealthMs } = await healthDuring(() => post(route.path, route.body(nested(20_000)), route.key));
      const elapsed = performance.now() - started;
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { message: string; metadata: { error_type: string; max_depth: number } } };
      expect(body.error.metadata).toMatchObject({ error_type: "invalid_request", max_depth: 64 });
      expect(body.error.message).toContain("64");
      expect(elapsed).toBeLessThan(1000);
      expect(slowestHealthMs).toBeLessThan(500);
    });
  }
});

test("the limit is exact: 64 levels in all are read (and validated), 65 are refused", async () => {
  // The body's own object is level 1, messages 2, the message 3, so content carries depth - 3 more levels.
  const at = await post("/chat/completions", ROUTES[0]!.body(nested(61)));
  expect(((await at.json()) as { error: { message: string } }).error.message).not.toContain("nests deeper");
  const over = await post("/chat/completions", ROUTES[0]!.body(nested(62)));
  expect(((await over.json()) as { error: { message: string } }).error.message).toContain("nests deeper than 64");
});

test("brackets inside strings do not count, escaped quotes included", async () => {
  const content = JSON.stringify(`\\"${"[".repeat(5000)}"`);
  const res = await post("/chat/completions", `{"model":"simulator/small","messages":[{"role":"user","content":${content}}]}`);
  expect(res.status).toBe(200);
});

test("a wide body of shallow nesting that fails validation: a 400 quickly, not seconds of error formatting", async () => {
  // ~2.4 million small arrays (4.8 MB): validation fails on the first one; the answer must not cost a walk of them all.
  const wide = "[" + Array(40_000).fill(nested(60).slice(2, -2)).join(",") + "]";
  const started = performance.now();
  const res = await post("/messages", ROUTES[1]!.body(wide));
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: { metadata: { param?: string } } }).error.metadata.param).toBe("messages.0.content.0");
  expect(performance.now() - started).toBeLessThan(1500);
});
