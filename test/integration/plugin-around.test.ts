/**
 * The `around` plugin hook through HTTP, with a plugin that imports only the public SDK entry
 * (test/fixtures/extensions/turn-wrapper.ts): it retries a turn with a changed request, fans one out to two models
 * and combines the answers, reads the chosen endpoint's context length, charges for priced work (shown in
 * `usage.cost` and billed to the key), and sees the client go away through its abort signal. Every turn is billed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { observed } from "../fixtures/extensions/turn-wrapper.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";
import { TERMINAL, waitForBatch } from "../unit/batches/http-support.ts";

let gw: TestGateway;
beforeAll(
  async () =>
    void (gw = await startTestGateway({
      file: { extensions: ["./test/fixtures/extensions/turn-wrapper.ts"], batches: { poll_interval_ms: 20, discount: 0.5 } },
    })),
);
afterAll(() => gw.close());

interface ChatResult {
  model: string;
  choices: Array<{ message: { content: string } }>;
  usage: { prompt_tokens: number; completion_tokens: number; cost: number };
  service_metadata?: { attempts: Array<{ model: string; status: number }>; pipeline?: Array<Record<string, unknown>> };
}

const ask = (content: string, extra: Record<string, unknown> = {}) => ({ model: "simulator/small", messages: [{ role: "user", content }], ...extra });

async function chat(body: Record<string, unknown>, key?: string): Promise<{ status: number; json: ChatResult }> {
  const res = await gw.request("/chat/completions", { method: "POST", json: body, headers: { "x-service-metadata": "enabled" }, ...(key ? { key } : {}) });
  return { status: res.status, json: (await res.json()) as ChatResult };
}

/** What the same question costs on one model, asked without the plugin. */
async function plainCost(model: string, content: string): Promise<number> {
  const { json } = await chat(ask(content, { model }));
  expect(json.usage.cost).toBeGreaterThan(0);
  return json.usage.cost;
}

describe("around: one plugin, several turns", () => {
  test("retries a turn once with a changed request: the client gets the second answer and pays for both turns", async () => {
    const question = "retry me please";
    const expected = (await plainCost("simulator/small", question)) + (await plainCost("simulator/large", question));
    const { status, json } = await chat(ask(question, { plugins: [{ id: "turn-wrapper", mode: "retry", model: "simulator/large" }] }));
    expect(status).toBe(200);
    expect(json.model).toBe("simulator/large");
    expect(json.service_metadata?.attempts.map((a) => a.model)).toEqual(["simulator/small", "simulator/large"]);
    expect(json.usage.cost).toBeCloseTo(expected, 12);
    expect(json.service_metadata?.pipeline).toEqual([{ type: "plugin", name: "turn-wrapper", summary: 'retried after "simulator/small"' }]);
  });

  test("a retried turn may stream: the final usage chunk carries the cost of both turns", async () => {
    const question = "retry me as a stream";
    const expected = (await plainCost("simulator/small", question)) + (await plainCost("simulator/large", question));
    const res = await gw.request("/chat/completions", {
      method: "POST",
      json: ask(question, { stream: true, stream_options: { include_usage: true }, plugins: [{ id: "turn-wrapper", mode: "retry", model: "simulator/large" }] }),
    });
    expect(res.status).toBe(200);
    const chunks = (await res.text())
      .split("\n\n")
      .filter((f) => f.startsWith("data: {"))
      .map((f) => JSON.parse(f.slice(6)) as { model: string; usage?: { cost?: number } });
    expect(chunks[0]!.model).toBe("simulator/large");
    const usage = chunks.findLast((c) => c.usage !== undefined)?.usage;
    expect(usage?.cost).toBeCloseTo(expected, 12);
  });

  test("fans a turn out to two models and returns one combined answer, billed for both", async () => {
    const question = "fan me out";
    const small = await chat(ask(question));
    const large = await chat(ask(question, { model: "simulator/large" }));
    const { status, json } = await chat(ask(question, { plugins: [{ id: "turn-wrapper", mode: "fanout", models: ["simulator/small", "simulator/large"] }] }));
    expect(status).toBe(200);
    expect(json.choices[0]!.message.content).toBe(
      `[simulator/small] ${small.json.choices[0]!.message.content}\n[simulator/large] ${large.json.choices[0]!.message.content}`,
    );
    expect(json.usage.completion_tokens).toBe(small.json.usage.completion_tokens + large.json.usage.completion_tokens);
    expect(json.usage.cost).toBeCloseTo(small.json.usage.cost + large.json.usage.cost, 12);
    expect(json.service_metadata?.attempts).toHaveLength(2);
  });

  test("a whole answer to a streaming request (the fan-out's) reaches the client as a stream, with the whole bill", async () => {
    const question = "fan me out as a stream";
    const small = await chat(ask(question));
    const large = await chat(ask(question, { model: "simulator/large" }));
    const res = await gw.request("/chat/completions", {
      method: "POST",
      json: ask(question, { stream: true, stream_options: { include_usage: true }, plugins: [{ id: "turn-wrapper", mode: "fanout", models: ["simulator/small", "simulator/large"] }] }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/event-stream");
    const frames = (await res.text()).split("\n\n").filter((f) => f.startsWith("data: "));
    expect(frames.at(-1)).toBe("data: [DONE]");
    const chunks = frames.slice(0, -1).map((f) => JSON.parse(f.slice(6)) as { choices: Array<{ delta?: { content?: string } }>; usage?: { cost: number } });
    const text = chunks.map((c) => c.choices[0]?.delta?.content ?? "").join("");
    expect(text).toBe(`[simulator/small] ${small.json.choices[0]!.message.content}\n[simulator/large] ${large.json.choices[0]!.message.content}`);
    expect(chunks.findLast((c) => c.usage)?.usage?.cost).toBeCloseTo(small.json.usage.cost + large.json.usage.cost, 12);
  });

  test("reads the chosen endpoint's context length before the call, then calls exactly that decision", async () => {
    for (const [model, length] of [["simulator/small", 32768], ["simulator/large", 200000]] as const) {
      const { status, json } = await chat(ask("how long is my context?", { model, plugins: [{ id: "turn-wrapper", mode: "context" }] }));
      expect(status).toBe(200);
      expect(json.model).toBe(model);
      expect(json.service_metadata?.pipeline).toEqual([{ type: "plugin", name: "turn-wrapper", endpoint: `${model}@simulator`, context_length: length }]);
      expect(json.service_metadata?.attempts).toHaveLength(1);
    }
  });
});

describe("around: a plugin bug", () => {
  test("an around hook that returns no outcome is a 500 without internals, and the turn it made is still billed", async () => {
    const question = "break after one turn";
    const cost = await plainCost("simulator/small", question);
    const created = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "bug" } });
    const { key } = (await created.json()) as { key: string };
    const res = await gw.request("/chat/completions", { method: "POST", key, json: ask(question, { plugins: [{ id: "turn-wrapper", mode: "broken" }] }) });
    expect(res.status).toBe(500);
    expect(await res.json()).toEqual({ error: { code: 500, message: "Internal server error", metadata: { error_type: "server" } }, service_metadata: null, user_id: null });
    await Bun.sleep(20); // the settlement is not awaited by the reply
    expect(await keyUsage(key)).toBeCloseTo(cost, 12);
  });
});

describe("around: charges", () => {
  test("a charge shows in usage.cost and in what the key is billed", async () => {
    const question = "charge me";
    const base = await plainCost("simulator/small", question);
    const created = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "charged" } });
    const { key } = (await created.json()) as { key: string };
    const { status, json } = await chat(ask(question, { plugins: [{ id: "turn-wrapper", mode: "charge", amount: 0.25 }] }), key);
    expect(status).toBe(200);
    expect(json.usage.cost).toBeCloseTo(base + 0.25, 12);
    const view = await gw.request("/key", { key });
    const usage = ((await view.json()) as { data: { usage: number } }).data.usage;
    expect(usage).toBeCloseTo(base + 0.25, 12);
  });

  test("a charge the key's limit cannot hold is a 402 before any upstream call, and nothing is billed", async () => {
    const created = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "small limit", limit: 0.01 } });
    const { key } = (await created.json()) as { key: string };
    const res = await gw.request("/chat/completions", {
      method: "POST",
      key,
      headers: { "x-service-metadata": "enabled" },
      json: ask("too expensive", { plugins: [{ id: "turn-wrapper", mode: "charge", amount: 0.25 }] }),
    });
    expect(res.status).toBe(402);
    const envelope = (await res.json()) as { error: { metadata: { error_type: string; plugin: string } }; service_metadata: { attempts: unknown[] } };
    expect(envelope.error.metadata).toMatchObject({ error_type: "payment_required", plugin: "turn-wrapper" });
    expect(envelope.service_metadata.attempts).toEqual([]);
    const view = await gw.request("/key", { key });
    expect(((await view.json()) as { data: { usage: number } }).data.usage).toBe(0);
  });
});

describe("around: the client goes away", () => {
  test("the plugin's abort signal fires when the client disconnects", async () => {
    const client = new AbortController();
    const sent = gw
      .request("/chat/completions", { method: "POST", json: ask("wait for me", { plugins: [{ id: "turn-wrapper", mode: "abort" }] }), signal: client.signal })
      .catch((error: unknown) => error);
    await Bun.sleep(200);
    client.abort();
    expect(await observed.aborted.promise).toBe(true);
    expect(await sent).toBeInstanceOf(Error);
  });
});

/** A key with a credit limit; `limit` 0.02 USD holds one worst case of LARGE (~0.0151 USD at 1,000 output tokens) but not two. */
async function limitedKey(limit = 0.02): Promise<string> {
  const created = await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "limited", limit } });
  return ((await created.json()) as { key: string }).key;
}

const LARGE = { model: "simulator/large", max_tokens: 1000 };

async function keyUsage(key: string): Promise<number> {
  return ((await (await gw.request("/key", { key })).json()) as { data: { usage: number } }).data.usage;
}

describe("around: credit holds per turn", () => {
  test("a later turn the key's limit cannot hold is a 402 before it is sent; the first turn is still billed", async () => {
    const question = "one turn fits, two do not";
    const firstTurn = (await chat(ask(question, LARGE))).json.usage.cost;
    const key = await limitedKey();
    const { status, json } = await chat(ask(question, { ...LARGE, plugins: [{ id: "turn-wrapper", mode: "retry", model: "simulator/large" }] }), key);
    expect(status).toBe(402);
    const envelope = json as unknown as { error: { message: string; metadata: { error_type: string } }; service_metadata: { attempts: unknown[] } };
    expect(envelope.error.metadata.error_type).toBe("payment_required");
    expect(envelope.error.message).toContain("another model turn");
    expect(envelope.service_metadata.attempts).toHaveLength(1);
    await Bun.sleep(20); // the settlement is not awaited by the reply
    expect(await keyUsage(key)).toBeCloseTo(firstTurn, 12);
  });

  test("a stream handed on after its client left (never read) settles at once: the key's credit hold is released", async () => {
    const key = await limitedKey();
    const client = new AbortController();
    const sent = gw
      .request("/chat/completions", {
        method: "POST",
        key,
        signal: client.signal,
        json: ask("nobody reads me", { ...LARGE, stream: true, plugins: [{ id: "turn-wrapper", mode: "late" }] }),
      })
      .catch((error: unknown) => error);
    await Bun.sleep(150);
    client.abort();
    expect(await sent).toBeInstanceOf(Error);
    // Held until its TTL (15 min) if the unread stream never settled: the next request on the key would be a 402.
    let status = 0;
    for (const deadline = Date.now() + 3_000; Date.now() < deadline; await Bun.sleep(25)) {
      status = (await chat(ask("and now me", LARGE), key)).status;
      if (status === 200) break;
    }
    expect(status).toBe(200);
  });
});

describe("around: batches run the same turn", () => {
  test("a batch request naming the plugin is retried by it, and its result carries the cost of both turns (discounted)", async () => {
    const question = "batch retry";
    const expected = (await plainCost("simulator/small", question)) + (await plainCost("simulator/large", question));
    const submitted = await gw.request("/batches", {
      method: "POST",
      json: {
        endpoint: "/chat/completions",
        requests: [{ custom_id: "r1", body: ask(question, { plugins: [{ id: "turn-wrapper", mode: "retry", model: "simulator/large" }] }) }],
      },
    });
    expect(submitted.status).toBe(202);
    const { id } = (await submitted.json()) as { id: string };
    const { batch } = await waitForBatch(gw, id, (b) => TERMINAL.includes(b.status));
    expect(batch.status).toBe("completed");
    const body = batch.results![0]!.response!.body;
    expect(body.model).toBe("simulator/large");
    expect(body.usage.cost).toBeCloseTo(expected * 0.5, 12);
  });
});
