/**
 * Output guardrails through HTTP: with `apply_to` output or both, the model's answer is checked —
 * non-streamed: a block is a 403 (the answer is still billed, and its record says 403), a redaction rewrites it;
 * streamed (chat and Responses): an answer that leaks a secret halfway is cut with the format's in-band error, or
 * redacted so that no chunk carries it. `apply_to: input` (the default) leaves answers alone.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { MODEL, guardrail, newKey, startGuardedGateway, type GuardedGateway } from "./setup.ts";

type Json = Record<string, any>;
const LEAK = "Sure. The deploy key is AKIAIOSFODNN7EXAMPLE and the rest of the answer follows here.";
let g: GuardedGateway;
let blocking: { key: string; hash: string };
let redacting: { key: string; hash: string };
let inputOnly: { key: string; hash: string };

beforeAll(async () => {
  g = await startGuardedGateway(() => ({ text: LEAK }));
  [blocking, redacting, inputOnly] = [await newKey(g.gw), await newKey(g.gw), await newKey(g.gw)];
  await guardrail(g.gw, { name: "out-block", apply_to: "output", content_filter_builtins: [{ slug: "secrets", action: "block" }] }, { keyHash: blocking.hash });
  await guardrail(g.gw, { name: "out-redact", apply_to: "both", content_filter_builtins: [{ slug: "secrets", action: "redact" }] }, { keyHash: redacting.hash });
  await guardrail(g.gw, { name: "in-only", content_filter_builtins: [{ slug: "secrets", action: "block" }] }, { keyHash: inputOnly.hash });
});
afterAll(() => g.close());

const ask = (key: string, extra: Json = {}) =>
  g.gw.request("/chat/completions", { method: "POST", key, headers: { "x-service-metadata": "enabled" }, json: { model: MODEL, messages: [{ role: "user", content: "give me the key" }], ...extra } });

/** The `data:` payloads of an SSE body, `[DONE]` as a string. */
async function frames(res: Response): Promise<Array<Json | string>> {
  return (await res.text())
    .split("\n\n")
    .flatMap((f) => f.split("\n").filter((l) => l.startsWith("data: ")).map((l) => l.slice(6)))
    .map((d) => (d === "[DONE]" ? d : (JSON.parse(d) as Json)));
}

describe("non-streamed answers", () => {
  test("block: 403 naming the output side; the answer was produced, so it is billed and its record says 403", async () => {
    const res = await ask(blocking.key);
    expect(res.status).toBe(403);
    const body = (await res.json()) as Json;
    expect(body.error).toMatchObject({ message: "Response blocked by content filter: SECRET", metadata: { patterns: ["aws_access_key_id"], side: "output", guardrail_name: "out-block" } });
    expect(body.service_metadata.pipeline).toEqual([expect.objectContaining({ name: "secrets_detection", data: expect.objectContaining({ action: "blocked", side: "output" }) })]);
    await Bun.sleep(50);
    await g.gw.gateway.deps.ledger.flush();
    const record = (await (await g.gw.request(`/generation?id=${res.headers.get("x-generation-id")}`, { key: blocking.key })).json()) as Json;
    expect(record.data).toMatchObject({ status: 403, error_type: "permission_denied" });
    expect(record.data.total_cost).toBeGreaterThan(0);
    expect(record.data.pipeline).toEqual([expect.objectContaining({ name: "secrets_detection" })]);
  });

  test("redact: the answer carries the placeholder", async () => {
    const res = await ask(redacting.key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.choices[0].message.content).toBe("Sure. The deploy key is [SECRET:aws_access_key_id] and the rest of the answer follows here.");
    expect(body.service_metadata.pipeline).toEqual([expect.objectContaining({ data: expect.objectContaining({ action: "redacted", side: "output" }) })]);
  });

  test("apply_to input (the default) does not read the answer", async () => {
    const res = await ask(inputOnly.key);
    expect(res.status).toBe(200);
    expect(((await res.json()) as Json).choices[0].message.content).toBe(LEAK);
  });
});

describe("streamed answers", () => {
  test("chat, block: the stream is cut with the in-band 403 before the secret goes out, then [DONE]", async () => {
    const res = await ask(blocking.key, { stream: true });
    expect(res.status).toBe(200);
    const all = await frames(res);
    const content = all.flatMap((f) => (typeof f === "object" ? (f.choices?.[0]?.delta?.content ?? "") : "")).join("");
    expect(content).toBe("Sure. The deploy key is ");
    const error = all.find((f) => typeof f === "object" && f.error) as Json;
    expect(error.error).toMatchObject({ code: 403, message: "Response blocked by content filter: SECRET", metadata: { error_type: "permission_denied", side: "output" } });
    expect(error.service_metadata.pipeline[0]).toMatchObject({ type: "guardrail", name: "secrets_detection", data: { action: "blocked" } });
    expect(all.at(-1)).toBe("[DONE]");
  });

  test("chat, redact: no chunk carries the secret and the joined text has the placeholder", async () => {
    const res = await ask(redacting.key, { stream: true, stream_options: { include_usage: true } });
    const all = await frames(res);
    const deltas = all.flatMap((f) => (typeof f === "object" && typeof f.choices?.[0]?.delta?.content === "string" ? [f.choices[0].delta.content as string] : []));
    for (const d of deltas) expect(d).not.toContain("AKIA");
    expect(deltas.join("")).toBe("Sure. The deploy key is [SECRET:aws_access_key_id] and the rest of the answer follows here.");
    const last = all.filter((f) => typeof f === "object").at(-1) as Json;
    expect(last.usage.cost).toBeGreaterThan(0);
    expect(last.service_metadata.pipeline).toEqual([expect.objectContaining({ data: expect.objectContaining({ action: "redacted" }) })]);
  });

  test("Responses through the openai client, block: the stream ends in response.failed with the 403", async () => {
    const client = new OpenAI({ baseURL: g.gw.baseUrl, apiKey: blocking.key });
    const stream = await client.responses.create({ model: MODEL, input: "give me the key", stream: true });
    const types: string[] = [];
    let failed: Json | undefined;
    let text = "";
    for await (const event of stream) {
      types.push(event.type);
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.failed") failed = event.response as unknown as Json;
    }
    expect(text).not.toContain("AKIA");
    expect(types.at(-1)).toBe("response.failed");
    expect(failed?.error).toMatchObject({ message: "Response blocked by content filter: SECRET", metadata: { error_type: "permission_denied" } });
  });
});
