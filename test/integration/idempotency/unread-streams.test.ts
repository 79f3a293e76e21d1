/**
 * Streams sent with an `Idempotency-Key` whose client reads nothing, through HTTP. The reply is recorded for its
 * retries as the client pulls it (core/idempotency/recorded-frames.ts), so such a stream behaves as one without the
 * header: the upstream is read no further than the sockets' buffers, the write time-out
 * (`server.stream_write_timeout_ms`) closes it and lets the upstream go, its usage is recorded, and a reply past the
 * recording's cap (`idempotency.max_reply_bytes`) is not kept — so neither memory nor the database grows with it.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sha256Hex } from "../../../core/idempotency/body-digest.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { headerOf, postAndStopReading, type UnreadClient } from "../../support/unread-client.ts";
import { startCountingUpstream, type CountingUpstream } from "./counting-upstream.ts";
import { gatewayFile, MODEL } from "./setup.ts";

async function until(predicate: () => boolean | Promise<boolean>, what: string, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await predicate())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await Bun.sleep(50);
  }
}

/** The reply kept for `key` on /chat/completions, if any (the id the service files it under). */
function keptReply(gw: TestGateway, key: string) {
  const id = sha256Hex(`${gw.inferenceKeyHash}\n/chat/completions\n${key}`);
  return gw.gateway.deps.store.idempotency.get(id, Date.now());
}

/** Starts `count` streams that nobody reads, each with its own key; resolves once every head arrived. */
async function unreadStreams(gw: TestGateway, body: unknown, count: number, prefix: string): Promise<{ clients: UnreadClient[]; keys: string[]; ids: string[] }> {
  const clients: UnreadClient[] = [];
  const keys = Array.from({ length: count }, (_, i) => `${prefix}-${Date.now()}-${i}`);
  for (const key of keys) clients.push(await postAndStopReading(`${gw.baseUrl}/chat/completions`, body, { authorization: `Bearer ${gw.inferenceKey}`, "idempotency-key": key }));
  const heads = await Promise.all(clients.map((c) => c.head));
  for (const head of heads) expect(head).toStartWith("HTTP/1.1 200");
  return { clients, keys, ids: heads.map((head) => headerOf(head, "x-generation-id")!) };
}

const fileSize = (path: string) => Bun.file(path).size;

describe("long simulator streams nobody reads, with the default cap", () => {
  let gw: TestGateway;
  let dir: string;
  let database: string;

  beforeAll(async () => {
    // A database on disk, to see what the replies would add to it.
    dir = await mkdtemp(join(tmpdir(), "idem-unread-"));
    database = join(dir, "gateway.db");
    gw = await startTestGateway({ env: { DATABASE_URL: `sqlite://${database}` }, file: { server: { stream_write_timeout_ms: 1_000, keep_alive_ms: 200 } } });
  });

  afterAll(async () => {
    await gw.close();
    await rm(dir, { recursive: true, force: true });
  });

  test("are closed by the write time-out with their usage recorded; nothing is kept; memory and database stay put", async () => {
    // 100,000 tokens are ~20 MB of chat chunks each, five times the 4 MB cap.
    const body = { model: "simulator/small", stream: true, messages: [{ role: "user", content: "hi [sim tokens=100000]" }] };
    const databaseBefore = fileSize(database) + fileSize(`${database}-wal`);
    Bun.gc(true);
    const rssBefore = process.memoryUsage().rss;
    const { clients, keys, ids } = await unreadStreams(gw, body, 6, "sim");
    try {
      // The write time-out closes every connection (recorded, they used to be fed until their end and stay open).
      await until(() => clients.every((c) => c.closed()), "the write time-out to close every stream");
      // Each stream was let go and metered: cut short of its 100,000 tokens.
      for (const id of ids) {
        await until(async () => (await gw.request(`/generation?id=${id}`)).status === 200, `the generation record of ${id}`);
        const record = ((await (await gw.request(`/generation?id=${id}`)).json()) as { data: { tokens_completion: number } }).data;
        expect(record.tokens_completion).toBeGreaterThan(0);
        expect(record.tokens_completion).toBeLessThan(100_000);
      }
      for (const key of keys) expect(await keptReply(gw, key)).toBeUndefined();
      Bun.gc(true);
      // Generous bounds: recorded whole, six such streams took ~290 MB of memory and ~200 MB of database.
      expect((process.memoryUsage().rss - rssBefore) / 1e6).toBeLessThan(120);
      expect((fileSize(database) + fileSize(`${database}-wal`) - databaseBefore) / 1e6).toBeLessThan(16);
    } finally {
      for (const c of clients) c.close();
    }
  }, 60_000);
});

describe("a long upstream stream nobody reads", () => {
  let upstream: CountingUpstream;
  let gw: TestGateway;

  beforeAll(async () => {
    upstream = startCountingUpstream();
    gw = await startTestGateway({ file: { ...gatewayFile(upstream.baseUrl), server: { stream_write_timeout_ms: 1_000, keep_alive_ms: 200 }, idempotency: { max_reply_bytes: 65_536 } } });
  });

  afterAll(async () => {
    await gw.close();
    upstream.stop();
  });

  test("is read no further than the sockets' buffers, and the write time-out cancels it", async () => {
    // ~150 MB of upstream frames per stream: far more than every buffer between the upstream and the client.
    upstream.words = 1_000_000;
    const body = { model: MODEL, stream: true, messages: [{ role: "user", content: "hi" }] };
    const { clients, keys } = await unreadStreams(gw, body, 2, "upstream");
    try {
      const readAhead = () => upstream.sent.some((sent) => sent > 50e6);
      // Let go by the gateway once the write time-out ends them (recorded, they used to be read to their end at once).
      await until(() => upstream.cancelled === 2 || readAhead(), "the upstream streams to be cancelled");
      for (const sent of upstream.sent) expect(sent / 1e6).toBeLessThan(50);
      expect(upstream.cancelled).toBe(2);
      await until(() => clients.every((c) => c.closed()), "the write time-out to close every stream");
      for (const key of keys) expect(await keptReply(gw, key)).toBeUndefined();
    } finally {
      for (const c of clients) c.close();
    }
  }, 60_000);
});
