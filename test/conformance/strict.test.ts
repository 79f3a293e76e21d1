/**
 * Strict translation mode, checked for every warning a request translation can raise: each row
 * names the source file of one warning site (a format decoder or an adapter's request builder), a request that
 * reaches it and the field the warning names. Without strict mode the request succeeds and the warning is in
 * `service_metadata.warnings`; with `X-Service-Strict: true` it is a 422 `unprocessable` naming the field and the
 * fake upstream received nothing. A last test keeps the table complete: every file with warning sites has at least
 * as many rows as it has sites.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { replyOf } from "../support/fake-upstream/fixtures.ts";
import { startFakeUpstream, type FakeUpstream } from "../support/fake-upstream/server.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { MODEL, providersFor } from "./support/setup.ts";
import { RETRIEVAL_SITES, ROWS, strictProviders, UNREACHABLE, type FormatId, type Row } from "./support/strict-rows.ts";

type Json = Record<string, unknown>;

let fake: FakeUpstream;
let gw: TestGateway;
beforeAll(async () => {
  fake = await startFakeUpstream();
  gw = await startTestGateway({ file: { providers: [...providersFor(fake), ...strictProviders(fake.origin)], routing: { max_retries: 0, breaker: { failure_threshold: 1_000_000 } } } });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const PATH: Record<FormatId, string> = { chat: "/chat/completions", responses: "/responses", messages: "/messages" };
const QUESTION = "What is the capital of France?";

/** The row's request body: a one-question conversation in its format, with the row's fields on top. */
export function bodyOf(row: Row, stream = false): Json {
  const model = row.model ?? MODEL[row.adapter];
  const base: Json =
    row.format === "chat"
      ? { model, messages: [{ role: "user", content: QUESTION }] }
      : row.format === "responses"
        ? { model, input: QUESTION }
        : { model, max_tokens: 256, messages: [{ role: "user", content: QUESTION }] };
  return { ...base, ...row.body, ...(stream ? { stream: true } : {}) };
}

async function post(row: Row, headers: Record<string, string>, stream = false): Promise<{ status: number; body: Json; text: string }> {
  const res = await gw.request(PATH[row.format], { method: "POST", json: bodyOf(row, stream), headers: { "x-service-metadata": "enabled", ...headers } });
  const text = await res.text();
  const json = res.headers.get("content-type")?.includes("application/json") ? (JSON.parse(text) as Json) : {};
  return { status: res.status, body: json, text };
}

const label = (row: Row) => `${row.site}: ${row.format} → ${row.adapter}, ${row.field}`;

describe("strict mode refuses every translation warning before the upstream is called", () => {
  for (const row of ROWS) {
    test(label(row), async () => {
      // Without strict mode: answered, and the warning names the field.
      const reply = replyOf(row.adapter, "text", false);
      if (row.otherPath) delete reply.expectPath;
      fake.enqueue(reply);
      const lenient = await post(row, {});
      expect(lenient.status, lenient.text).toBe(200);
      const warnings = ((lenient.body.service_metadata as Json | undefined)?.warnings as Array<{ code: string; field?: string }> | undefined) ?? [];
      expect(warnings.map((w) => w.field), lenient.text).toContain(row.field);
      expect(fake.requests).toHaveLength(1);

      // Strict: a 422 naming the field; the upstream saw nothing.
      fake.reset();
      const strict = await post(row, { "x-service-strict": "true" });
      expect(strict.status, strict.text).toBe(422);
      const error = strict.body.error as { message: string; metadata: { error_type: string; fields: string[] } };
      expect(error.metadata.error_type).toBe("unprocessable");
      expect(error.metadata.fields).toContain(row.field);
      expect(error.message).toContain(row.field);
      expect(fake.requests).toHaveLength(0);
    });
  }
});

describe("strict refusal of a stream is an HTTP 422, not an in-band error", () => {
  const samples = [ROWS.find((r) => r.format === "chat" && r.field === "frobnicate")!, ROWS.find((r) => r.site === "providers/gemini/request.ts" && r.field === "speed")!];
  for (const row of samples) {
    test(label(row), async () => {
      const strict = await post(row, { "x-service-strict": "true" }, true);
      expect(strict.status, strict.text).toBe(422);
      expect((strict.body.error as Json).message).toContain(row.field);
      expect(fake.requests).toHaveLength(0);
    });
  }
});

describe("the table covers every warning site of a request translation", () => {
  /** Warning calls (the helpers' own definitions and response-side files excluded). */
  const CALL = /(^|[^A-Za-z.])(warn|warnUnsupported|warnSpeed|warnAsyncTools|warnMessageNames|warnNonTextModalities)\(|warnings\.push\(/g;
  /** Files whose warnings describe an upstream's reply or a rendered result: nothing left to refuse by then. */
  const RESPONSE_SIDE = /^(core\/formats\/[^/]+\/(encode|stream|stream-[a-z-]+|output-items|response-object)\.ts|providers\/[^/]+\/(response|stream|stream-[a-z-]+|events)\.ts)$/;
  const DEFINITIONS = new Set(["core/provider-kit/warnings.ts", "core/provider-kit/request-fields.ts"]);
  const files = [
    ...new Glob("core/formats/**/*.ts").scanSync("."),
    ...new Glob("providers/**/*.ts").scanSync("."),
    ...new Glob("core/provider-kit/**/*.ts").scanSync("."),
    "core/observe/tracing/unused-trace.ts",
  ].filter((f) => !RESPONSE_SIDE.test(f) && !DEFINITIONS.has(f) && !f.startsWith("providers/simulator/"));
  for (const file of files.sort()) {
    const source = readFileSync(file, "utf8").replace(/^\s*(\/\/|\*).*$/gm, "").replace(/export function \w+\(/g, "");
    const sites = [...source.matchAll(CALL)].length;
    if (sites === 0) continue;
    test(`${file}: ${sites} warning site(s), as many rows`, () => {
      const covered = ROWS.filter((r) => r.site === file).length + UNREACHABLE.filter((u) => u.site === file).length + RETRIEVAL_SITES.filter((r) => r.site === file).length;
      expect(covered).toBeGreaterThanOrEqual(sites);
    });
  }
});
