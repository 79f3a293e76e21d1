/**
 * Cells a pair cannot carry ("recorded as a warning, visible in service_metadata when opted in, never
 * dropped silently"). Each row names a (format, adapter) pair and a request feature the upstream has no place for;
 * the request still succeeds, the feature is absent upstream, and `service_metadata.warnings` names it — collected
 * and streamed.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { replyOf, type AdapterId } from "../support/fake-upstream/fixtures.ts";
import { send, type Conversation, type FormatId, type Turn } from "./support/client.ts";
import { QUESTION, upstreamCall } from "./support/matrix.ts";
import { MODEL, startConformance, type Conformance } from "./support/setup.ts";
import type { UpstreamView } from "./support/upstream-view.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

type Json = Record<string, unknown>;

interface Row {
  format: FormatId;
  adapter: AdapterId;
  feature: string;
  turns?: Turn[];
  extra?: Json;
  /** The warning's `field`. */
  field: string | RegExp;
  /** True when the upstream request shows no trace of the feature. */
  absent(view: UpstreamView): boolean;
}

const user: Turn = { role: "user", text: QUESTION };
const SIGNED = "EqQBCkgIBBABGAIiQL0cR2v8yZ1c3pQnTq0Lw7ZbW1vK5mYh3xJrP9sD4fG6hJ8k";

const ROWS: Row[] = [
  { format: "messages", adapter: "openai-responses", feature: "top_k", extra: { top_k: 40 }, field: "top_k", absent: (v) => !("top_k" in v.body) },
  { format: "responses", adapter: "openai-responses", feature: "top_k", extra: { top_k: 40 }, field: "top_k", absent: (v) => !("top_k" in v.body) },
  { format: "messages", adapter: "openai-responses", feature: "stop_sequences", extra: { stop_sequences: ["\n\nHuman:"] }, field: "stop", absent: (v) => !("stop" in v.body) },
  { format: "chat", adapter: "anthropic", feature: "seed", extra: { seed: 7 }, field: "seed", absent: (v) => !("seed" in v.body) },
  { format: "chat", adapter: "gemini", feature: "logit_bias", extra: { logit_bias: { "50256": -100 } }, field: "logit_bias", absent: (v) => JSON.stringify(v.body).indexOf("50256") === -1 },
  { format: "responses", adapter: "gemini", feature: "user", extra: { user: "end-user-42" }, field: "user", absent: (v) => !JSON.stringify(v.body).includes("end-user-42") },
  {
    format: "messages",
    adapter: "openai",
    feature: "cache_control",
    extra: { system: [{ type: "text", text: "Long shared instructions.", cache_control: { type: "ephemeral" } }] },
    field: "cache_control",
    absent: (v) => !JSON.stringify(v.body).includes("cache_control"),
  },
  {
    format: "messages",
    adapter: "gemini",
    feature: "cache_control",
    extra: { cache_control: { type: "ephemeral", ttl: "1h" } },
    field: "cache_control",
    absent: (v) => !JSON.stringify(v.body).includes("ephemeral"),
  },
  {
    format: "chat",
    adapter: "anthropic",
    feature: "unsigned reasoning",
    turns: [user, { role: "replay", items: [{ role: "assistant", content: "Paris.", reasoning: "Easy one: Paris." }] }, { role: "user", text: "And of Italy?" }],
    field: "messages.assistant.reasoning",
    absent: (v) => v.items.every((i) => i.kind !== "reasoning") && !JSON.stringify(v.body).includes("Easy one"),
  },
  {
    format: "responses",
    adapter: "anthropic",
    feature: "reasoning item without a signature",
    turns: [
      user,
      { role: "replay", items: [{ type: "reasoning", id: "rs_abc123", summary: [{ type: "summary_text", text: "Easy one: Paris." }] }, { type: "message", role: "assistant", content: [{ type: "output_text", text: "Paris.", annotations: [] }] }] },
      { role: "user", text: "And of Italy?" },
    ],
    field: "messages.assistant.reasoning",
    absent: (v) => v.items.every((i) => i.kind !== "reasoning"),
  },
  {
    format: "messages",
    adapter: "openai-responses",
    feature: "Anthropic-signed thinking (another family's reasoning)",
    turns: [user, { role: "replay", items: [{ role: "assistant", content: [{ type: "thinking", thinking: "Easy one.", signature: SIGNED }, { type: "text", text: "Paris." }] }] }, { role: "user", text: "And of Italy?" }],
    field: /^messages\[\d+\]\.reasoning$/,
    absent: (v) => v.items.every((i) => i.kind !== "reasoning") && !JSON.stringify(v.body).includes(SIGNED),
  },
  {
    format: "chat",
    adapter: "gemini",
    feature: "Anthropic-signed reasoning_details (another family's reasoning)",
    turns: [
      user,
      { role: "replay", items: [{ role: "assistant", content: "Paris.", reasoning_details: [{ type: "reasoning.text", text: "Easy one.", signature: SIGNED, format: "anthropic-claude-v1", index: 0 }] }] },
      { role: "user", text: "And of Italy?" },
    ],
    field: "messages.assistant.reasoning",
    absent: (v) => !JSON.stringify(v.body).includes(SIGNED),
  },
  {
    format: "messages",
    adapter: "openai",
    feature: "is_error on a tool result",
    turns: [
      user,
      { role: "replay", items: [{ role: "assistant", content: [{ type: "tool_use", id: "toolu_01X", name: "get_weather", input: { city: "Paris" } }] }] },
      { role: "replay", items: [{ role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01X", content: "service down", is_error: true }] }] },
    ],
    field: "tool_result.is_error",
    absent: (v) => !JSON.stringify(v.body).includes("is_error"),
  },
  // Accepted and dropped with no warning before.
  { format: "messages", adapter: "openai", feature: "speed", extra: { speed: "fast" }, field: "speed", absent: (v) => !("speed" in v.body) },
  { format: "messages", adapter: "gemini", feature: "speed", extra: { speed: "fast" }, field: "speed", absent: (v) => !JSON.stringify(v.body).includes("fast") },
  { format: "messages", adapter: "openai-responses", feature: "speed", extra: { speed: "fast" }, field: "speed", absent: (v) => !("speed" in v.body) },
  { format: "chat", adapter: "anthropic", feature: "message name", turns: [{ role: "replay", items: [{ role: "user", name: "alice", content: QUESTION }] }], field: "messages.name", absent: (v) => !JSON.stringify(v.body).includes("alice") },
  { format: "chat", adapter: "gemini", feature: "message name", turns: [{ role: "replay", items: [{ role: "user", name: "alice", content: QUESTION }] }], field: "messages.name", absent: (v) => !JSON.stringify(v.body).includes("alice") },
  { format: "chat", adapter: "openai-responses", feature: "message name", turns: [{ role: "replay", items: [{ role: "user", name: "alice", content: QUESTION }] }], field: "messages.name", absent: (v) => !JSON.stringify(v.body).includes("alice") },
  { format: "chat", adapter: "gemini", feature: "safety_identifier", extra: { safety_identifier: "end-user-7" }, field: "safety_identifier", absent: (v) => !JSON.stringify(v.body).includes("safety") },
  { format: "chat", adapter: "anthropic", feature: "safety_identifier beside user", extra: { user: "u-1", safety_identifier: "end-user-7" }, field: "safety_identifier", absent: (v) => JSON.stringify(v.body.metadata) === JSON.stringify({ user_id: "u-1" }) },
  { format: "chat", adapter: "anthropic", feature: "prompt_cache_key", extra: { prompt_cache_key: "pck-1" }, field: "prompt_cache_key", absent: (v) => !JSON.stringify(v.body).includes("pck-1") },
  { format: "chat", adapter: "gemini", feature: "prompt_cache_key", extra: { prompt_cache_key: "pck-1" }, field: "prompt_cache_key", absent: (v) => !JSON.stringify(v.body).includes("pck-1") },
  { format: "chat", adapter: "anthropic", feature: "prompt_cache_options ttl", extra: { prompt_cache_options: { mode: "explicit", ttl: "1h" } }, field: "prompt_cache_options", absent: (v) => !JSON.stringify(v.body).includes("1h") },
  { format: "responses", adapter: "gemini", feature: "prompt_cache_options", extra: { prompt_cache_options: { mode: "explicit" } }, field: "prompt_cache_options", absent: (v) => !JSON.stringify(v.body).includes("explicit") },
  { format: "chat", adapter: "anthropic", feature: "image modality", extra: { modalities: ["text", "image"] }, field: "modalities", absent: (v) => !("modalities" in v.body) },
  { format: "chat", adapter: "openai-responses", feature: "prediction", extra: { prediction: { type: "content", content: "Paris" } }, field: "prediction", absent: (v) => !("prediction" in v.body) },
  { format: "responses", adapter: "openai", feature: "tool async", extra: { tools: [{ type: "function", name: "get_weather", parameters: { type: "object" }, async: true }] }, field: "tools[0].async", absent: (v) => !JSON.stringify(v.body).includes("async") },
  { format: "responses", adapter: "gemini", feature: "tool async", extra: { tools: [{ type: "function", name: "get_weather", parameters: { type: "object" }, async: true }] }, field: "tools[0].async", absent: (v) => !JSON.stringify(v.body).includes("async") },
  { format: "responses", adapter: "gemini", feature: "trace (tracing is off)", extra: { trace: { trace_name: "checkout-42" } }, field: "trace", absent: (v) => !JSON.stringify(v.body).includes("checkout-42") },
];

for (const row of ROWS) {
  for (const stream of [false, true]) {
    describe(`${row.format} → ${row.adapter} (${stream ? "streamed" : "collected"})`, () => {
      test(`${row.feature}: not sent upstream, and reported in service_metadata.warnings`, async () => {
        c.fake.enqueue(replyOf(row.adapter, "text", stream));
        const conv: Conversation = { model: MODEL[row.adapter], turns: row.turns ?? [user], stream };
        if (row.extra) conv.extra = row.extra;
        const seen = await send(c.gw, row.format, conv, { metadata: true });
        expect(seen.error).toBeUndefined();
        expect(seen.status).toBe(200);
        expect(seen.text).toBe("The capital of France is Paris.");
        expect(row.absent(upstreamCall(c.fake, row.adapter, stream))).toBe(true);
        const warnings = (seen.metadata?.warnings as Array<{ code: string; field?: string; message: string }> | undefined) ?? [];
        const match = warnings.filter((w) => (typeof row.field === "string" ? w.field === row.field : row.field.test(w.field ?? "")));
        expect(match).toHaveLength(1);
        expect(match[0]?.code).toBe("unsupported_field");
        expect(match[0]?.message.length).toBeGreaterThan(10);
      });
    });
  }
}

describe("service_metadata is opt-in", () => {
  for (const format of ["chat", "responses", "messages"] as const) {
    test(`${format}: without X-Service-Metadata the warning is still recorded, but no metadata is shown`, async () => {
      c.fake.enqueue(replyOf("openai-responses", "text", false));
      const seen = await send(c.gw, format, { model: MODEL["openai-responses"], turns: [user], stream: false, extra: { top_k: 40 } });
      expect(seen.status).toBe(200);
      expect(seen.metadata).toBeUndefined();
      expect(JSON.stringify(seen.body)).not.toContain("service_metadata");
    });
  }
});
