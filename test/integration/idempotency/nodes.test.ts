/**
 * Idempotent requests across two gateway processes' worth of state: one kv claim makes exactly one
 * node run a key, a retry on the other node waits for the stored reply, and a claim left by a node that died frees
 * itself when its lease runs out. Runs on a shared memory kv and SQLite store, and on Postgres and Redis when
 * DATABASE_URL (postgres) and REDIS_URL are set, as in CI.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { sha256Hex } from "../../../core/idempotency/body-digest.ts";
import { createMemoryKv } from "../../../core/kv/memory.ts";
import { openStore } from "../../../core/store/connect.ts";
import type { Kv } from "../../../core/kv/kv.ts";
import type { Store } from "../../../core/store/types.ts";
import type { TestGateway } from "../../support/gateway.ts";
import { createTempSchema, POSTGRES_URL, type TempSchema } from "../../support/pg-schema.ts";
import { ANSWER, startCountingUpstream, untilReceived, type CountingUpstream } from "./counting-upstream.ts";
import { MODEL, startIdempotencyGateway } from "./setup.ts";

interface Nodes {
  a: TestGateway;
  b: TestGateway;
  close(): Promise<void>;
}

const REDIS_URL = process.env.REDIS_URL;
const services = POSTGRES_URL !== undefined && REDIS_URL !== undefined;
if (!services) console.log("idempotency across nodes on Postgres and Redis: skipped (set DATABASE_URL=postgres://… and REDIS_URL=redis://… to run)");

/** Two gateways on one memory kv and one SQLite store (each gateway closes its deps: the shared ones close once, last). */
async function memoryNodes(upstream: CountingUpstream): Promise<Nodes> {
  const kv = createMemoryKv();
  const store = await openStore("sqlite://:memory:");
  const shared = { kv: { ...kv, close: async () => {} } as Kv, store: { ...store, close: async () => {} } as Store };
  const a = await startIdempotencyGateway(upstream.baseUrl, { overrides: shared });
  const b = await startIdempotencyGateway(upstream.baseUrl, { overrides: shared });
  return { a, b, close: async () => (await a.close(), await b.close(), await kv.close(), await store.close()) };
}

let schema: TempSchema | undefined;
async function serviceNodes(upstream: CountingUpstream): Promise<Nodes> {
  schema = await createTempSchema(POSTGRES_URL!);
  const env = { DATABASE_URL: schema.url, REDIS_URL };
  const a = await startIdempotencyGateway(upstream.baseUrl, { env });
  const b = await startIdempotencyGateway(upstream.baseUrl, { env });
  return { a, b, close: async () => (await a.close(), await b.close(), await schema?.drop()) };
}

function suite(name: string, start: (upstream: CountingUpstream) => Promise<Nodes>, enabled = true) {
  describe.skipIf(!enabled)(name, () => {
    let upstream: CountingUpstream;
    let nodes: Nodes;
    let run = 0;
    // Keys unique per run: a Redis shared with other runs never holds one of them.
    const freshKey = () => `nodes-${crypto.randomUUID()}-${++run}`;
    const body = (content = "hello") => ({ model: MODEL, messages: [{ role: "user", content }] });
    /** `key` defaults to A's inference key: the same API key on both nodes. */
    const post = (gw: TestGateway, idempotencyKey: string, json: unknown) =>
      gw.request("/chat/completions", { method: "POST", json, key: nodes.a.inferenceKey, headers: { "idempotency-key": idempotencyKey } });

    beforeAll(async () => {
      upstream = startCountingUpstream();
      nodes = await start(upstream);
    });
    afterAll(async () => {
      await nodes?.close();
      upstream?.stop();
    });
    beforeEach(() => upstream.reset());

    test("a retry on the other node while the first runs waits for it and gets the same reply: one upstream call", async () => {
      upstream.delayMs = 300;
      const key = freshKey();
      const first = post(nodes.a, key, body());
      await untilReceived(upstream);
      const second = await post(nodes.b, key, body());
      const firstReply = await first;
      expect(second.status).toBe(200);
      expect(second.headers.get("idempotent-replayed")).toBe("true");
      expect(await second.text()).toBe(await firstReply.text());
      expect(upstream.bodies).toHaveLength(1);
    });

    test("a streamed retry on the other node gets the whole stream once it is stored", async () => {
      upstream.chunkDelayMs = 50;
      const key = freshKey();
      const first = await post(nodes.a, key, { ...body(), stream: true });
      const firstText = first.text();
      await Bun.sleep(60);
      const second = await post(nodes.b, key, { ...body(), stream: true });
      expect(second.headers.get("content-type")).toStartWith("text/event-stream");
      expect(await second.text()).toBe(await firstText);
      expect(await firstText).toContain("five");
      expect(upstream.bodies).toHaveLength(1);
    });

    test("another body on the other node while the first runs is a 409", async () => {
      upstream.delayMs = 300;
      const key = freshKey();
      const first = post(nodes.a, key, body());
      await untilReceived(upstream);
      expect((await post(nodes.b, key, body("other"))).status).toBe(409);
      expect((await first).status).toBe(200);
      expect(upstream.bodies).toHaveLength(1);
    });

    test("a finished reply is replayed by the other node from the store", async () => {
      const key = freshKey();
      const first = await post(nodes.a, key, body());
      const second = await post(nodes.b, key, body());
      expect(((await second.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content).toBe(ANSWER);
      expect(second.headers.get("x-generation-id")).toBe(first.headers.get("x-generation-id"));
      expect(upstream.bodies).toHaveLength(1);
    });

    test("a claim left by a node that died frees itself when its lease runs out; the retry then runs", async () => {
      const key = freshKey();
      const digest = sha256Hex(JSON.stringify(body()));
      // What a node that crashed mid-request leaves behind: its claim, with (here) 400 ms of lease left.
      const id = sha256Hex(`${nodes.a.inferenceKeyHash}\n/chat/completions\n${key}`);
      expect(await nodes.a.gateway.deps.kv.setIfAbsent(`gw:idem:${id}`, digest, 400)).toBe(true);
      const started = Date.now();
      const reply = await post(nodes.b, key, body());
      expect(reply.status).toBe(200);
      expect(reply.headers.get("idempotent-replayed")).toBeNull();
      expect(Date.now() - started).toBeGreaterThanOrEqual(300);
      expect(upstream.bodies).toHaveLength(1);
    });
  });
}

suite("two gateways on one memory kv and one SQLite store", memoryNodes);
suite("two gateways on one Postgres and one Redis", serviceNodes, services);
