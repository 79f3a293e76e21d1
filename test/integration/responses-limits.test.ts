/**
 * POST /responses: every 400 rule of the spec through HTTP, at its boundary (accepted, and what was accepted reaches
 * the upstream) and one past it (400 with the error envelope naming the field, and nothing sent upstream).
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { responsesFormat } from "../../core/formats/responses/index.ts";
import { startSimulatorServer, type SimulatorServer } from "../../providers/simulator/server.ts";
import { withoutRetries } from "../support/fake-responses-upstream.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

type Json = Record<string, any>;

const MODEL = "acme/model-a";
const BASE = { model: MODEL, input: "hi [sim tokens=2]" };

let gw: TestGateway;
let sim: SimulatorServer;
let client: OpenAI;

beforeAll(async () => {
  sim = startSimulatorServer({ record: true });
  gw = await startTestGateway({
    file: { providers: [{ id: "acme", adapter: "openai", base_url: sim.url, models: [{ id: MODEL, upstream_model: "model-a", tiers: ["default", "flex", "priority"] }] }] },
    configure: withoutRetries,
  });
  client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});

afterAll(async () => {
  await gw.close();
  await sim.stop();
});

const post = (body: Json, headers: Record<string, string> = {}) => gw.request("/responses", { method: "POST", headers, json: body });

/** Accepted: 200, and the upstream got the request (returns its body). */
async function accepted(body: Json, headers: Record<string, string> = {}): Promise<Json> {
  const before = sim.requests.length;
  const res = await post({ ...BASE, ...body }, headers);
  expect(res.status).toBe(200);
  expect(((await res.json()) as Json).status).toBe("completed");
  expect(sim.requests.length).toBe(before + 1);
  return sim.requests.at(-1)!.body as Json;
}

/** Rejected: 400 with the envelope, the message naming `mentions`, and nothing sent upstream. */
async function rejected(body: Json, mentions: string | RegExp, headers: Record<string, string> = {}): Promise<Json> {
  const before = sim.requests.length;
  const res = await post({ ...BASE, ...body }, headers);
  expect(res.status).toBe(400);
  expect(res.headers.get("content-type")).toContain("application/json");
  const envelope = (await res.json()) as Json;
  expect(envelope).toEqual({
    error: { code: 400, message: expect.any(String), metadata: expect.objectContaining({ error_type: "invalid_request" }) },
    service_metadata: null,
    user_id: null,
  });
  if (typeof mentions === "string") expect(envelope.error.message).toContain(mentions);
  else expect(envelope.error.message).toMatch(mentions);
  expect(sim.requests.length).toBe(before);
  return envelope;
}

const pairs = (n: number) => Object.fromEntries(Array.from({ length: n }, (_, i) => [`key${i}`, `value${i}`]));

describe("stateless rules", () => {
  test("previous_response_id: null is accepted; any value is rejected and the message says to send the history in input", async () => {
    await accepted({ previous_response_id: null });
    for (const value of ["resp_68a1b2c3", 42, { id: "resp_1" }]) {
      const envelope = await rejected({ previous_response_id: value }, "previous_response_id");
      expect(envelope.error.message).toMatch(/full (conversation )?history/);
      expect(envelope.error.message).toContain("input");
    }
  });

  test("the official client gets a BadRequestError for previous_response_id", async () => {
    const failure = await client.responses.create({ model: MODEL, input: "hi", previous_response_id: "resp_1" }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(OpenAI.BadRequestError);
    expect((failure as InstanceType<typeof OpenAI.BadRequestError>).message).toContain("previous_response_id");
  });

  test("store: false is accepted (and not forwarded to the chat upstream); store: true is rejected", async () => {
    expect(await accepted({ store: false })).not.toHaveProperty("store");
    await rejected({ store: true }, "store");
  });

  test("a stream request is rejected the same way, before any event is sent", async () => {
    await rejected({ store: true, stream: true }, "store");
    await rejected({ previous_response_id: "resp_1", stream: true }, "previous_response_id");
  });

  test("input is required", async () => {
    await rejected({ input: undefined }, "input");
  });
});

describe("limits at the boundary and one past it", () => {
  test("max_tool_calls: 30 is accepted, 31 rejected", async () => {
    await accepted({ max_tool_calls: 30 });
    await accepted({ max_tool_calls: 0 });
    await rejected({ max_tool_calls: 31 }, "max_tool_calls");
    await rejected({ max_tool_calls: -1 }, "max_tool_calls");
  });

  test("metadata: 16 pairs reach the upstream, 17 are rejected", async () => {
    expect((await accepted({ metadata: pairs(16) })).metadata).toEqual(pairs(16));
    await rejected({ metadata: pairs(17) }, "metadata");
  });

  test("metadata keys: 64 characters accepted, 65 rejected", async () => {
    const key64 = "k".repeat(64);
    expect((await accepted({ metadata: { [key64]: "v" } })).metadata).toEqual({ [key64]: "v" });
    await rejected({ metadata: { ["k".repeat(65)]: "v" } }, "metadata");
  });

  test("metadata keys with brackets are rejected", async () => {
    await accepted({ metadata: { "plain.key-1_(x){y}": "v" } });
    for (const key of ["a[b]", "tags[0]", "open[", "close]", "[", "]"]) await rejected({ metadata: { [key]: "v" } }, "metadata");
  });

  test("metadata values: 512 characters accepted, 513 rejected, non-strings rejected", async () => {
    const value512 = "v".repeat(512);
    expect((await accepted({ metadata: { k: value512 } })).metadata).toEqual({ k: value512 });
    await rejected({ metadata: { k: "v".repeat(513) } }, "metadata");
    await rejected({ metadata: { k: 1 } }, "metadata");
    await rejected({ metadata: { k: null } }, "metadata");
  });

  test("session_id: 256 characters accepted, 257 rejected", async () => {
    await accepted({ session_id: "s".repeat(256) });
    await rejected({ session_id: "s".repeat(257) }, "session_id");
  });

  test("x-session-id header: 256 accepted, 257 rejected; the body value wins when both are sent", async () => {
    await accepted({}, { "x-session-id": "h".repeat(256) });
    await rejected({}, "x-session-id", { "x-session-id": "h".repeat(257) });
    // The header is not even looked at when the body has a session id.
    await accepted({ session_id: "body" }, { "x-session-id": "h".repeat(257) });
  });

  test("session_id: the body wins over the header (decoder level)", () => {
    const decode = (body: Json, header?: string) =>
      responsesFormat.decode({ ...BASE, ...body }, new Headers(header === undefined ? {} : { "x-session-id": header })).sessionId;
    expect(decode({ session_id: "from-body" }, "from-header")).toBe("from-body");
    expect(decode({}, "from-header")).toBe("from-header");
    expect(decode({})).toBeUndefined();
  });

  test("session_id: the body wins over the header (routing level: the body value is the sticky session key)", async () => {
    // Two providers for one model, so routing pins sessions. The first request pins its session; a later request
    // that names a session only in the header is sticky only when that session was the one pinned.
    const sticky = await startTestGateway({
      file: {
        providers: ["east", "west"].map((id) => ({ id, adapter: "openai", base_url: sim.url, models: [{ id: MODEL, upstream_model: "model-a" }] })),
      },
      configure: withoutRetries,
    });
    try {
      const summary = async (body: Json, session: string) => {
        const res = await sticky.request("/responses", {
          method: "POST",
          headers: { "x-session-id": session, "X-Service-Metadata": "enabled" },
          json: { ...BASE, ...body },
        });
        expect(res.status).toBe(200);
        return ((await res.json()) as Json).service_metadata.summary as string;
      };
      expect(await summary({ session_id: "from-body" }, "from-header")).not.toContain("sticky");
      expect(await summary({}, "from-header")).not.toContain("sticky");
      expect(await summary({}, "from-body")).toContain("sticky");
    } finally {
      await sticky.close();
    }
  });

  test("user: 256 characters reach the upstream, 257 are rejected", async () => {
    expect((await accepted({ user: "u".repeat(256) })).user).toBe("u".repeat(256));
    await rejected({ user: "u".repeat(257) }, "user");
  });

  test("top_logprobs: 0 to 20", async () => {
    await accepted({ top_logprobs: 20 });
    await rejected({ top_logprobs: 21 }, "top_logprobs");
  });
});

describe("wrong enum values", () => {
  const cases: Array<[string, Json, Json]> = [
    ["service_tier", { service_tier: "turbo" }, { service_tier: "flex" }],
    ["truncation", { truncation: "disabled" }, { truncation: "auto" }],
    ["include", { include: ["reasoning.everything"] }, { include: ["reasoning.encrypted_content"] }],
    ["modalities", { modalities: ["audio"] }, { modalities: ["text"] }],
    ["route", { route: "best" }, { route: "fallback" }],
    ["reasoning.effort", { reasoning: { effort: "ultra" } }, { reasoning: { effort: "minimal" } }],
    ["reasoning.summary", { reasoning: { summary: "long" } }, { reasoning: { summary: "concise" } }],
    ["text.verbosity", { text: { verbosity: "loud" } }, { text: { verbosity: "medium" } }],
    ["text.format", { text: { format: { type: "yaml" } } }, { text: { format: { type: "json_object" } } }],
    ["tool_choice", { tool_choice: "sometimes" }, { tool_choice: "none" }],
    ["cache_control.type", { cache_control: { type: "persistent" } }, { cache_control: { type: "ephemeral" } }],
    ["prompt_cache_options.mode", { prompt_cache_options: { mode: "implicit" } }, { prompt_cache_options: { mode: "explicit", ttl: "5m" } }],
    ["input[0].role", { input: [{ role: "robot", content: "hi" }] }, { input: [{ role: "developer", content: "hi" }, { role: "user", content: "hi" }] }],
  ];
  for (const [field, bad, good] of cases) {
    test(`${field}: an allowed value is accepted, an unknown one rejected`, async () => {
      await accepted(good);
      await rejected(bad, field.split(".")[0]!.split("[")[0]!);
    });
  }

  test("service_tier fast is accepted as an alias of priority", async () => {
    expect((await accepted({ service_tier: "fast" })).service_tier).toBe("priority");
  });
});

describe("wrong types", () => {
  const cases: Array<[string, Json]> = [
    ["model", { model: 7 }],
    ["input", { input: 5 }],
    ["input", { input: [{ type: "function_call_output", output: "x" }] }],
    ["instructions", { instructions: ["Be brief."] }],
    ["stream", { stream: "yes" }],
    ["max_output_tokens", { max_output_tokens: 1.5 }],
    ["max_output_tokens", { max_output_tokens: "100" }],
    ["temperature", { temperature: "hot" }],
    ["top_p", { top_p: [1] }],
    ["parallel_tool_calls", { parallel_tool_calls: "false" }],
    ["tools", { tools: { type: "function", name: "f" } }],
    ["tools", { tools: [{ type: "function" }] }],
    ["metadata", { metadata: ["a"] }],
    ["session_id", { session_id: 12 }],
    ["user", { user: { id: 1 } }],
    ["debug", { debug: { echo_upstream_body: "yes" } }],
    ["safety_identifier", { safety_identifier: 99 }],
    ["plugins", { plugins: [{ enabled: true }] }],
  ];
  for (const [field, bad] of cases) {
    test(`${field}: ${JSON.stringify(bad).slice(0, 60)} is rejected`, async () => {
      await rejected(bad, field);
    });
  }
});

test("authentication comes before validation: an invalid body without a key is a 401", async () => {
  const res = await gw.request("/responses", { method: "POST", key: null, json: { ...BASE, store: true } });
  expect(res.status).toBe(401);
});
