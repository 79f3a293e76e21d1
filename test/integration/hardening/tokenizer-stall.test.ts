/**
 * Tokenising never stalls the gateway, through HTTP against a gateway in its own process (so a stalled gateway cannot
 * stall the test): runs of letters with no space (BPE on them is quadratic: 80 KB of `x` took 6.4 s) and megabytes of
 * words, to `POST /messages/count_tokens`, through context-compression (on by default for this 8,192-token model) and
 * as a page web_fetch cuts to `max_content_tokens`. Each answers with a count at least what the limits stage assumes
 * for the same bytes or a prompt within the window, while `/health` sent during the work is answered before it ends.
 * No durations are asserted: on the old code these inputs take minutes, and the tests time out there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { tokenizer } from "../../../core/model/tokens.ts";
import { ADMIN_KEY } from "../../support/gateway.ts";
import { spawnGatewayChild, type GatewayChild } from "../../support/gateway-process.ts";
import { startScriptedModel, type ScriptedModel } from "../../support/scripted-model.ts";

type Json = Record<string, any>;

const SMALL = "acme/small";
const LARGE = "acme/large";
const WORDS = "lorem ipsum dolor sit amet ";

/** `size` characters of six-letter words of random letters: they (almost) never repeat, so the tokenizer caches none. */
function freshWords(size: number): string {
  const bytes = new Uint8Array(size);
  let state = 7;
  for (let i = 0; i < size; i++) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    bytes[i] = i % 7 === 6 ? 0x20 : 0x61 + ((state >>> 0) % 26);
  }
  return new TextDecoder().decode(bytes);
}

let upstream: ScriptedModel;
let site: ReturnType<typeof Bun.serve>;
let child: GatewayChild;
let dir: string;
let base: string;
let key: string;

beforeAll(async () => {
  upstream = startScriptedModel(() => ({ text: "ok" }));
  // The page a fetch gets: 5 MB of `a`, one pre-token.
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response("a".repeat(5_000_000), { headers: { "content-type": "text/plain" } }) });
  dir = mkdtempSync(join(tmpdir(), "tokenizer-stall-"));
  const model = (id: string, context: number) => ({ id, upstream_model: "m", pricing: { prompt: 0.000001, completion: 0.000002 }, context_length: context });
  const config = {
    providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [model(SMALL, 8_192), model(LARGE, 100_000)] }],
    // The page server is on loopback, reached through the operator allow-list.
    network: { allow_private: ["127.0.0.1/32"] },
    // Containers in this test's directory, not ./data of the checkout.
    sandbox: { dir: join(dir, "containers") },
  };
  writeFileSync(join(dir, "config.json"), JSON.stringify(config));
  child = spawnGatewayChild({ GATEWAY_ADMIN_KEY: ADMIN_KEY, GATEWAY_CONFIG: join(dir, "config.json"), DATABASE_URL: `sqlite://${join(dir, "gw.db")}` });
  base = await child.base(30_000);
  const created = await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name: "stall" }) });
  key = ((await created.json()) as { key: string }).key;
  // The tokenizer loads on the first count (~0.3 s once), here and in the gateway: not part of any test.
  await tokenizer();
  expect((await post("/messages/count_tokens", { model: SMALL, messages: [{ role: "user", content: "hi" }] })).status).toBe(200);
}, 60_000);

afterAll(async () => {
  await child?.kill();
  upstream?.stop();
  site?.stop(true);
  rmSync(dir, { recursive: true, force: true });
});

const headers = () => ({ authorization: `Bearer ${key}`, "content-type": "application/json" });
const post = (path: string, body: unknown) => fetch(base + path, { method: "POST", headers: headers(), body: JSON.stringify(body) });
const health = () => fetch(`${base}/health`).then((res) => res.status);

/**
 * Sends `body` to `path` and, once every byte of it is handed over (the work has begun or is about to), asks for
 * `/health`; answers which finished first, the big request's status and its JSON.
 */
async function withHealthDuring(path: string, body: unknown) {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  let sent!: () => void;
  const handedOver = new Promise<void>((resolve) => (sent = resolve));
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        sent();
        return;
      }
      controller.enqueue(bytes.subarray(offset, offset + 256 * 1024));
      offset += 256 * 1024;
    },
  });
  const order: string[] = [];
  const big = fetch(base + path, { method: "POST", headers: { ...headers(), "content-length": String(bytes.length) }, body: stream }).then(async (res) => {
    order.push("big");
    return { status: res.status, json: (await res.json()) as Json };
  });
  await handedOver;
  const healthStatus = await health().then((status) => (order.push("health"), status));
  const answer = await big;
  return { order, healthStatus, ...answer };
}

/** Resident memory of the gateway process now (`VmRSS`) or at its peak (`VmHWM`), in MB (Linux). */
function rssMb(field: "VmRSS" | "VmHWM"): number {
  const status = readFileSync(`/proc/${child.child.pid}/status`, "utf8");
  return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(status)![1]) / 1024;
}

/** Starts a new peak: from now on `VmHWM` is the highest resident memory since this call. */
function resetPeak(): number {
  writeFileSync(`/proc/${child.child.pid}/clear_refs`, "5");
  return rssMb("VmRSS");
}

describe("POST /messages/count_tokens", () => {
  for (const size of [80_000, 1_000_000]) {
    test(`${size / 1000} KB of x with no space: at least a token per byte, as the limits stage assumes for those bytes`, async () => {
      const text = "x".repeat(size);
      const res = await post("/messages/count_tokens", { model: SMALL, messages: [{ role: "user", content: text }] });
      expect(res.status).toBe(200);
      const { input_tokens } = (await res.json()) as { input_tokens: number };
      // The credit reservation charges one token per prompt byte (core/limits/estimate.ts); the count is never below.
      expect(input_tokens).toBeGreaterThanOrEqual(Buffer.byteLength(text));
      // …and within the byte bound plus framing (4 per message, 3 priming the reply).
      expect(input_tokens).toBeLessThanOrEqual(Buffer.byteLength(text) + 7);
    });
  }

  test("1 MB of x and 4 MB of words: /health asked during the count is answered before it; the count is exact for the words", async () => {
    const words = WORDS.repeat(150_000);
    const run = "x".repeat(1_000_000);
    const { order, healthStatus, status, json } = await withHealthDuring("/messages/count_tokens", {
      model: SMALL,
      messages: [{ role: "user", content: [{ type: "text", text: run }, { type: "text", text: words }] }],
    });
    expect([status, healthStatus]).toEqual([200, 200]);
    expect(order).toEqual(["health", "big"]);
    const tk = await tokenizer();
    expect(json.input_tokens).toBe(run.length + tk.count(words) + 4 + 3);
  }, 20_000);
});

describe("context-compression (on by default for a window of 8,192)", () => {
  test("80 KB of x: cut to the window and answered", async () => {
    const res = await post("/chat/completions", { model: SMALL, messages: [{ role: "user", content: `BEGIN ${"x".repeat(80_000)} END` }] });
    expect(res.status).toBe(200);
    const sent = String((upstream.bodies.at(-1)!.messages as Json[])[0]!.content);
    expect(sent.startsWith("BEGIN x")).toBe(true);
    expect(sent.endsWith("x END")).toBe(true);
    expect((await tokenizer()).count(sent)).toBeLessThanOrEqual(8_192);
  });

  test("one 9 MB message of words: /health asked meanwhile is answered first; the prompt is cut to the window; memory stays bounded", async () => {
    const huge = `BEGIN ${freshWords(9_000_000)} END`;
    const before = resetPeak();
    const { order, healthStatus, status } = await withHealthDuring("/chat/completions", { model: SMALL, messages: [{ role: "user", content: huge }] });
    expect([status, healthStatus]).toEqual([200, 200]);
    expect(order).toEqual(["health", "big"]);
    const sent = String((upstream.bodies.at(-1)!.messages as Json[])[0]!.content);
    expect(sent.startsWith(huge.slice(0, 100))).toBe(true);
    expect(sent.endsWith(huge.slice(-100))).toBe(true);
    expect((await tokenizer()).count(sent)).toBeLessThanOrEqual(8_192);
    // Encoding the whole message took 1.2 GB more; the body itself is 9 MB.
    console.log(`gateway RSS ${before.toFixed(0)} MB, peak during the request ${rssMb("VmHWM").toFixed(0)} MB`);
    expect(rssMb("VmHWM") - before).toBeLessThan(400);
  }, 20_000);
});

test("web_fetch of a page of 5 MB of `a`: cut to max_content_tokens by characters, and the model gets it", async () => {
  const url = `http://127.0.0.1:${site.port}/page.txt`;
  upstream.script = (body) => ((body.messages as Json[]).some((m) => m.role === "tool") ? { text: "read it" } : { calls: [{ name: "web_fetch", args: { url } }] });
  const res = await post("/chat/completions", { model: LARGE, messages: [{ role: "user", content: "Read the page" }], tools: [{ type: "service:web_fetch" }] });
  upstream.script = () => ({ text: "ok" });
  expect(res.status).toBe(200);
  const messages = upstream.bodies.at(-1)!.messages as Json[];
  const result = JSON.parse(String(messages.find((m) => m.role === "tool")!.content)) as Json;
  // The default max_content_tokens is 50,000: a run of `a` is one token per byte there.
  expect(result).toMatchObject({ status: "completed", truncated: true, content_type: "text/plain" });
  expect(result.content).toBe("a".repeat(50_000));
  expect(await health()).toBe(200);
});
