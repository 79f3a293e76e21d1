/**
 * pareto-router's 5-minute session stickiness through HTTP: a
 * session — its `session_id` / `x-session-id`, else the conversation (system prompt and first user message) — keeps
 * the model chosen for it while that model is still one of the request's candidates and can serve, even when the
 * ranking would now pick another; 5 minutes after the session's last request it is chosen afresh. The gateway runs
 * on an injected clock that also drives the memory kv's expiry.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { hashSecret, labelOf, newSecret } from "../../core/auth/key-material.ts";
import { createMemoryKv } from "../../core/kv/memory.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";

type Json = Record<string, any>;
const MINUTE = 60_000;
let upstream: ScriptedModel;
let gw: TestGateway;
let now = Date.now();
const clock = { now: () => now };

const model = (id: string, price: number, coding: number) => ({ id, upstream_model: id.split("/")[1]!, pricing: { prompt: price, completion: price }, context_length: 100_000, quality: { coding } });

beforeAll(async () => {
  upstream = startScriptedModel((body) => ({ text: `answer from ${String(body.model)}` }));
  const provider = (id: string, models: Array<ReturnType<typeof model>>) => ({ id, adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models });
  gw = await startTestGateway({
    // The high tier's frontier is p1/x (cheaper, ranked first) and p2/y; p1/cheap is the low tier.
    file: { providers: [provider("p1", [model("p1/cheap", 0.0000001, 0.2), model("p1/x", 0.000001, 0.7)]), provider("p2", [model("p2/y", 0.000002, 0.8)])] },
    overrides: { clock, kv: createMemoryKv(clock) },
  });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
});
beforeEach(() => {
  now += 60 * MINUTE; // every test starts with no session remembered
});

async function chat(body: Json, headers: Record<string, string> = {}, key?: string): Promise<Json> {
  const res = await gw.request("/chat/completions", { method: "POST", key, json: { model: "service/pareto-code", ...body }, headers: { "x-service-metadata": "enabled", ...headers } });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}
const first = (text = "write a parser") => [{ role: "user", content: text }];
/** The same conversation, a turn later. */
const later = (text = "write a parser") => [...first(text), { role: "assistant", content: "here it is" }, { role: "user", content: "now add tests" }];
/** p1 cannot serve this request, so the ranking's first model (p1/x) is passed over for p2/y. */
const withoutP1 = { provider: { ignore: ["p1"] } };
const entry = (json: Json) => (json.service_metadata.pipeline as Json[]).find((e) => e.name === "pareto-router")!;

describe("pareto-router stickiness", () => {
  test("the same conversation keeps its model within 5 minutes even when the ranking would now pick another", async () => {
    expect((await chat({ messages: first(), ...withoutP1 })).model).toBe("p2/y");
    now += 4 * MINUTE;
    const kept = await chat({ messages: later() });
    expect(kept.model).toBe("p2/y");
    expect(entry(kept).data).toMatchObject({ sticky: { model: "p2/y", ttl_ms: 5 * MINUTE }, resolved_to: "p2/y", fallback_models: ["p1/x"] });
    expect(kept.service_metadata.summary).toContain("the session's model");
    // Another conversation is ranked afresh.
    const other = await chat({ messages: first("write a lexer") });
    expect(other.model).toBe("p1/x");
    expect(entry(other).data.sticky).toBeUndefined();
  });

  test("each request renews the 5 minutes; 5 minutes after the last one the session is ranked afresh", async () => {
    expect((await chat({ messages: first(), ...withoutP1 })).model).toBe("p2/y");
    now += 4 * MINUTE;
    expect((await chat({ messages: later() })).model).toBe("p2/y");
    now += 4 * MINUTE; // 8 minutes after the choice, 4 after the last request
    expect((await chat({ messages: later() })).model).toBe("p2/y");
    now += 5 * MINUTE + 1;
    expect((await chat({ messages: later() })).model).toBe("p1/x");
  });

  test("session_id (or x-session-id) names the session whatever the conversation", async () => {
    expect((await chat({ messages: first("task one"), session_id: "s-1", ...withoutP1 })).model).toBe("p2/y");
    expect((await chat({ messages: first("task two"), session_id: "s-1" })).model).toBe("p2/y");
    expect((await chat({ messages: first("task three") }, { "x-session-id": "s-1" })).model).toBe("p2/y");
    expect((await chat({ messages: first("task two"), session_id: "s-2" })).model).toBe("p1/x");
  });

  test("sessions are per workspace: another workspace with the same session id or conversation is ranked afresh", async () => {
    const store = gw.gateway.deps.store;
    const other = await store.workspaces.create("other");
    const key = newSecret();
    await store.keys.create({ hash: hashSecret(key), workspaceId: other.id, name: "other", label: labelOf(key), isManagement: false, limit: null, limitReset: null, expiresAt: null });
    expect((await chat({ messages: first(), session_id: "shared", ...withoutP1 })).model).toBe("p2/y");
    expect((await chat({ messages: first(), session_id: "shared" }, {}, key)).model).toBe("p1/x");
    expect((await chat({ messages: later() }, {}, key)).model).toBe("p1/x");
    // The first workspace's session is still its own.
    expect((await chat({ messages: later(), session_id: "shared" })).model).toBe("p2/y");
  });

  test("a kept model outside the request's tier is not used: the tier's own choice is made and kept", async () => {
    expect((await chat({ messages: first(), ...withoutP1 })).model).toBe("p2/y");
    const low = await chat({ messages: later(), plugins: [{ id: "pareto-router", min_coding_score: 0.1 }] });
    expect(low.model).toBe("p1/cheap");
    expect(entry(low).data.sticky).toBeUndefined();
    expect((await chat({ messages: later(), plugins: [{ id: "pareto-router", min_coding_score: 0.1 }] })).model).toBe("p1/cheap");
  });
});
