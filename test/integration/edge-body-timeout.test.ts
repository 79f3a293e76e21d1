/**
 * Reading a request body is bounded in time: a body that stalls or trickles is a 408 envelope
 * and its connection is closed, and a request without a key is refused before a byte of its body is read.
 * The bounds are made small here (README "Limits of the HTTP edge" has the defaults).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { rawHttp } from "../support/raw-http.ts";

let gw: TestGateway;
let port: number;
beforeAll(async () => {
  gw = await startTestGateway({ file: { server: { body_timeout_ms: 1500, body_grace_ms: 300, body_min_bytes_per_second: 1000 } } });
  port = Number(new URL(gw.origin).port);
});
afterAll(async () => gw.close());

const BODY = JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: "hello" }] });

const head = (headers: string, key: string | null = gw.inferenceKey) =>
  `POST /api/v1/chat/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${key ? `Authorization: Bearer ${key}\r\n` : ""}${headers}\r\n`;

function expectTimeout(reply: { status: number; body: string; closedMs: number | undefined }, reason: string): void {
  expect(reply.status).toBe(408);
  const body = JSON.parse(reply.body) as { error: { metadata: { error_type: string; reason: string } } };
  expect(body.error.metadata).toMatchObject({ error_type: "timeout", reason });
  // The connection is closed with the answer: the client cannot go on holding it.
  expect(reply.closedMs).toBeDefined();
}

describe("a body that does not arrive", () => {
  test("declared, then stalled after a few bytes: 408 once the grace and the rate allow no more", async () => {
    const reply = await rawHttp(port, { send: head(`Content-Length: ${BODY.length}\r\n`) + BODY.slice(0, 10), waitMs: 4000 });
    expectTimeout(reply, "body_too_slow");
    // grace 300 ms + what 1000 B/s allows for the declared ~80 bytes; far from Bun's idle timeout of minutes.
    expect(reply.firstByteMs!).toBeLessThan(1500);
  });

  test("chunked, trickling one byte every 100 ms: 408 at the rate rule, while bytes keep coming", async () => {
    const reply = await rawHttp(port, {
      send: head("Transfer-Encoding: chunked\r\n") + "1\r\n{\r\n",
      trickle: { text: "1\r\n \r\n", everyMs: 100 },
      waitMs: 4000,
    });
    expectTimeout(reply, "body_too_slow");
    expect(reply.firstByteMs!).toBeLessThan(1500);
  });

  test("large and declared, arriving at the minimum rate but not within the total time: 408 body_timeout", async () => {
    const size = 100_000;
    // 1,200 B/s keeps above the rate rule (1,000 B/s after 300 ms) but cannot bring 100 KB within 1.5 s.
    const reply = await rawHttp(port, {
      send: head(`Content-Length: ${size}\r\n`) + " ".repeat(600),
      trickle: { text: " ".repeat(120), everyMs: 100 },
      waitMs: 4000,
    });
    expectTimeout(reply, "body_timeout");
    expect(reply.firstByteMs!).toBeGreaterThanOrEqual(1400);
    expect(reply.firstByteMs!).toBeLessThan(3000);
  });
});

describe("authentication comes before the body", () => {
  test("no key: 401 at once, without waiting for the body, and the connection is closed", async () => {
    const reply = await rawHttp(port, { send: head(`Content-Length: ${BODY.length}\r\n`, null) + BODY.slice(0, 10), waitMs: 3000 });
    expect(reply.status).toBe(401);
    expect(reply.firstByteMs!).toBeLessThan(250);
    expect(reply.closedMs).toBeDefined();
  });

  test("a wrong key: 401 likewise", async () => {
    const reply = await rawHttp(port, { send: head(`Content-Length: ${BODY.length}\r\n`, "sk-gw-v1-not-a-key") + BODY.slice(0, 10), waitMs: 3000 });
    expect(reply.status).toBe(401);
    expect(reply.firstByteMs!).toBeLessThan(250);
  });
});

test("a body that arrives in time is served, declared or chunked", async () => {
  expect((await gw.request("/chat/completions", { method: "POST", body: BODY, headers: { "content-type": "application/json" } })).status).toBe(200);
  const reply = await rawHttp(port, {
    send: head("Transfer-Encoding: chunked\r\nConnection: close\r\n") + `${BODY.length.toString(16)}\r\n${BODY}\r\n0\r\n\r\n`,
    waitMs: 3000,
  });
  expect(reply.status).toBe(200);
});
