/**
 * The cap on what one idempotent reply keeps (`idempotency.max_reply_bytes`), through HTTP: a reply past it reaches
 * its own client whole but is not kept, so a retry with the same key runs again (never a truncated replay); a retry
 * that joined a stream which then passes the cap sees a dropped stream, not an end. Replies under the cap are replayed
 * as before (chat.test.ts, formats.test.ts).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { startCountingUpstream, type CountingUpstream } from "./counting-upstream.ts";
import { billedGenerations, gatewayFile, MODEL } from "./setup.ts";

const CAP = 65_536;

let upstream: CountingUpstream;
let gw: TestGateway;
let run = 0;

beforeAll(async () => {
  upstream = startCountingUpstream();
  gw = await startTestGateway({ file: { ...gatewayFile(upstream.baseUrl), idempotency: { max_reply_bytes: CAP } } });
});

afterAll(async () => {
  await gw.close();
  upstream.stop();
});

beforeEach(() => upstream.reset());

const freshKey = () => `cap-${Date.now()}-${++run}`;
const post = (key: string, json: unknown) => gw.request("/chat/completions", { method: "POST", json, headers: { "idempotency-key": key } });
const body = (stream: boolean) => ({ model: MODEL, stream, messages: [{ role: "user", content: "hello" }] });

/** The words of the fake upstream's answer of `count` words, as its chunks carry them. */
const words = (count: number) => Array.from({ length: count }, (_, i) => `w${i % 10} `).join("");

/** The text content of a chat event stream. */
function streamedText(events: string): string {
  let text = "";
  for (const line of events.split("\n")) {
    if (!line.startsWith("data: {")) continue;
    const chunk = JSON.parse(line.slice(6)) as { choices: Array<{ delta: { content?: string } }> };
    text += chunk.choices[0]?.delta.content ?? "";
  }
  return text;
}

describe("a reply past the cap", () => {
  test("a stream reaches its client whole, is not kept, and its retry runs again", async () => {
    // ~300 KB of chat chunks.
    upstream.words = 2_000;
    const key = freshKey();
    const generationsBefore = await billedGenerations(gw);
    const first = await post(key, body(true));
    const firstEvents = await first.text();
    expect(firstEvents).toEndWith("data: [DONE]\n\n");
    expect(streamedText(firstEvents)).toBe(words(2_000));
    expect(firstEvents.length).toBeGreaterThan(CAP);

    const retry = await post(key, body(true));
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(streamedText(await retry.text())).toBe(words(2_000));
    expect(upstream.bodies).toHaveLength(2);
    expect(await billedGenerations(gw)).toBe(generationsBefore + 2);
  });

  test("a JSON reply reaches its client whole, is not kept, and its retry runs again", async () => {
    // ~90 KB of content.
    upstream.words = 30_000;
    const key = freshKey();
    const first = await post(key, body(false));
    expect(first.status).toBe(200);
    const reply = (await first.json()) as { choices: Array<{ message: { content: string } }> };
    expect(reply.choices[0]!.message.content).toBe(words(30_000));

    const retry = await post(key, body(false));
    expect(retry.status).toBe(200);
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    expect(upstream.bodies).toHaveLength(2);
  });

  test("a retry that joined the stream before it passed the cap gets a dropped stream, never a truncated end", async () => {
    upstream.words = 1_000;
    upstream.chunkDelayMs = 2;
    const key = freshKey();
    const first = await post(key, body(true));
    const reader = first.body!.getReader();
    const decoder = new TextDecoder();
    let firstEvents = decoder.decode((await reader.read()).value, { stream: true });
    // Joins while the reply is still under the cap (a few hundred frames of 150 bytes away from it).
    const joined = await post(key, body(true));
    expect(joined.headers.get("idempotent-replayed")).toBe("true");
    // True if its stream came to an end, false if its connection dropped.
    const joinedEnded = joined.text().then(
      () => true,
      () => false,
    );
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      firstEvents += decoder.decode(value, { stream: true });
    }
    expect(streamedText(firstEvents)).toBe(words(1_000));
    expect(await joinedEnded).toBe(false);
    // Nothing was kept: the next retry runs again.
    upstream.chunkDelayMs = 0;
    const retry = await post(key, body(true));
    expect(retry.headers.get("idempotent-replayed")).toBeNull();
    await retry.text();
    expect(upstream.bodies).toHaveLength(2);
  });
});

describe("a reply under the cap", () => {
  test("is replayed, streamed or not", async () => {
    upstream.words = 100;
    for (const stream of [true, false]) {
      const key = freshKey();
      const first = await (await post(key, body(stream))).text();
      const retry = await post(key, body(stream));
      expect(retry.headers.get("idempotent-replayed")).toBe("true");
      expect(await retry.text()).toBe(first);
    }
    expect(upstream.bodies).toHaveLength(2);
  });
});
