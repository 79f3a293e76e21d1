/**
 * The Host header never changes what a request reaches, and never exposes the runtime:
 * a missing or unusable Host is a 400 envelope, any usable one — even one character — routes on the path alone, and
 * a failure the app did not handle is the 500 envelope, never Bun's development error page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import pino from "pino";
import { Writable } from "node:stream";
import { buildConfig } from "../../core/config/load.ts";
import { serveGateway } from "../../core/serve.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { rawHttp } from "../support/raw-http.ts";

let gw: TestGateway;
let port: number;
beforeAll(async () => {
  gw = await startTestGateway();
  port = Number(new URL(gw.origin).port);
});
afterAll(async () => gw.close());

const get = (path: string, headers: string, version = "1.1") =>
  rawHttp(port, { send: `GET ${path} HTTP/${version}\r\n${headers}Connection: close\r\n\r\n`, waitMs: 3000 });

function expectEnvelope(reply: { status: number; head: string; body: string }, status: number, type: string): void {
  expect(reply.status).toBe(status);
  expect(reply.head.toLowerCase()).toContain("content-type: application/json");
  expect(reply.head.toLowerCase()).toMatch(/x-generation-id: gen-/);
  const body = JSON.parse(reply.body) as { error: { code: number; metadata: { error_type: string } } };
  expect(body.error.code).toBe(status);
  expect(body.error.metadata.error_type).toBe(type);
}

describe("missing or unusable Host", () => {
  test("HTTP/1.0 without Host on an unknown path: a 400 envelope, not the runtime's error page", async () => {
    const reply = await get("/api/v1/nothing-here", "", "1.0");
    expectEnvelope(reply, 400, "invalid_request");
    expect(reply.body).toContain("Host");
    expect(reply.body).not.toContain("<html");
    expect(reply.body).not.toContain(process.cwd());
  });

  test("HTTP/1.0 without Host on a known path and with a body: the same 400", async () => {
    const reply = await rawHttp(port, {
      send: `POST /api/v1/chat/completions HTTP/1.0\r\nContent-Type: application/json\r\nContent-Length: 2\r\n\r\n{}`,
      waitMs: 3000,
    });
    expectEnvelope(reply, 400, "invalid_request");
  });

  test("a Host Bun takes but no URL parser can (port out of range, bad IPv6 literal): 400", async () => {
    expectEnvelope(await get("/api/v1/health", "Host: a:99999\r\n"), 400, "invalid_request");
    expectEnvelope(await get("/api/v1/nothing", "Host: [zz]\r\n"), 400, "invalid_request");
  });
});

describe("short Host names route on the path", () => {
  for (const host of ["x", "ab", "abc", "[::1]", "localhost:8080"]) {
    test(`Host: ${host}`, async () => {
      const health = await get("/api/v1/health", `Host: ${host}\r\n`);
      expect(health.status).toBe(200);
      expect(JSON.parse(health.body)).toEqual({ status: "ok" });
      // A prefix before the API's own path names nothing: 404, never the route the tail of the path resembles.
      const keys = await get("/zz/api/v1/keys", `Host: ${host}\r\nAuthorization: Bearer ${ADMIN_KEY}\r\n`);
      expectEnvelope(keys, 404, "not_found");
      const realKeys = await get("/api/v1/keys", `Host: ${host}\r\nAuthorization: Bearer ${ADMIN_KEY}\r\n`);
      expect(realKeys.status).toBe(200);
      expect(JSON.parse(realKeys.body)).toHaveProperty("data");
    });
  }
});

test("an app that throws: the 500 envelope without internals, and an error line with the cause", async () => {
  const lines: Array<Record<string, unknown>> = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split("\n").filter(Boolean)) lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const logger = pino({ level: "info" }, sink);
  const config = buildConfig({}, { DATABASE_URL: "sqlite://:memory:" }, process.cwd());
  const crashing = {
    handle(): Response {
      throw new Error(`boom in ${process.cwd()}/secret.ts`);
    },
  };
  const server = serveGateway({ ...config, host: "127.0.0.1", port: 0 }, { app: crashing, deps: { logger, ids: { id: (p) => `${p}fixed` } } });
  try {
    const reply = await rawHttp(server.port!, { send: `GET /api/v1/health HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`, waitMs: 3000 });
    expectEnvelope(reply, 500, "server");
    expect(reply.body).not.toContain("boom");
    expect(reply.body).not.toContain(process.cwd());
    await Bun.sleep(20);
    const error = lines.find((l) => l.msg === "request failed");
    expect((error?.err as { message?: string } | undefined)?.message).toContain("boom");
    expect(lines.find((l) => l.msg === "request")).toMatchObject({ id: "gen-fixed", status: 500, method: "GET", path: "/api/v1/health" });
  } finally {
    await server.stop(true);
  }
});
