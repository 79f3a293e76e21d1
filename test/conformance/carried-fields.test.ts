/**
 * Fields that used to vanish with no warning, where the upstream has a place for them: each cell
 * checks the recorded upstream body carries the field in the upstream's own dialect — collected and streamed — and
 * that no warning names it. `trace` is the gateway's own (tracing) and never reaches an upstream. What cannot be
 * carried is a warning instead: see warnings.test.ts (cells) and strict.test.ts (every site, refused in strict mode).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { createHash } from "node:crypto";
import { replyOf, type AdapterId } from "../support/fake-upstream/fixtures.ts";
import { send, type Conversation, type FormatId, type Turn } from "./support/client.ts";
import { QUESTION, upstreamCall } from "./support/matrix.ts";
import { MODEL, startConformance, type Conformance } from "./support/setup.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

type Json = Record<string, unknown>;

interface Cell {
  format: FormatId;
  adapter: AdapterId;
  /** What is carried, for the test name. */
  feature: string;
  extra: Json;
  turns?: Turn[];
  /** The warning field that must NOT appear (the field was honoured). */
  field: string;
  carried(body: Json): void;
}

const user: Turn = { role: "user", text: QUESTION };
const digest = (raw: string) => createHash("sha256").update(raw, "utf8").digest("hex");
const WEATHER = { type: "function", name: "get_weather", parameters: { type: "object", properties: { city: { type: "string" } } } };

const CELLS: Cell[] = [
  {
    format: "chat",
    adapter: "openai",
    feature: "message name → name",
    extra: {},
    turns: [{ role: "replay", items: [{ role: "user", name: "alice", content: QUESTION }] }],
    field: "messages.name",
    carried: (body) => expect((body.messages as Json[]).find((m) => m.role === "user")?.name).toBe("alice"),
  },
  {
    format: "chat",
    adapter: "openai",
    feature: "safety_identifier → its SHA-256 as safety_identifier",
    extra: { safety_identifier: "end-user-7" },
    field: "safety_identifier",
    carried: (body) => expect(body.safety_identifier).toBe(digest("end-user-7")),
  },
  {
    format: "chat",
    adapter: "openai",
    feature: "prediction → prediction",
    extra: { prediction: { type: "content", content: "The capital of France is Paris." } },
    field: "prediction",
    carried: (body) => expect(body.prediction).toEqual({ type: "content", content: "The capital of France is Paris." }),
  },
  {
    format: "chat",
    adapter: "anthropic",
    feature: "safety_identifier → its SHA-256 as metadata.user_id",
    extra: { safety_identifier: "end-user-7" },
    field: "safety_identifier",
    carried: (body) => expect(body.metadata).toEqual({ user_id: digest("end-user-7") }),
  },
  {
    format: "responses",
    adapter: "anthropic",
    feature: "cache_control (top level) → cache_control; prompt_cache_options mode explicit is Anthropic's own behaviour",
    extra: { cache_control: { type: "ephemeral", ttl: "1h" }, prompt_cache_options: { mode: "explicit" } },
    field: "prompt_cache_options",
    carried: (body) => expect(body.cache_control).toEqual({ type: "ephemeral", ttl: "1h" }),
  },
  {
    format: "chat",
    adapter: "anthropic",
    feature: "modalities [text] → nothing to ask (text is all Anthropic answers)",
    extra: { modalities: ["text"] },
    field: "modalities",
    carried: (body) => expect(body).not.toHaveProperty("modalities"),
  },
  {
    format: "messages",
    adapter: "anthropic",
    feature: "speed → speed",
    extra: { speed: "fast" },
    field: "speed",
    carried: (body) => expect(body.speed).toBe("fast"),
  },
  {
    format: "chat",
    adapter: "gemini",
    feature: "modalities → generationConfig.responseModalities",
    extra: { modalities: ["text", "image"] },
    field: "modalities",
    carried: (body) => expect((body.generationConfig as Json).responseModalities).toEqual(["TEXT", "IMAGE"]),
  },
  {
    format: "responses",
    adapter: "openai-responses",
    feature: "tool async → async",
    extra: { tools: [{ ...WEATHER, async: true }] },
    field: "tools[0].async",
    carried: (body) => expect((body.tools as Json[])[0]?.async).toBe(true),
  },
  {
    format: "chat",
    adapter: "openai-responses",
    feature: "safety_identifier, prompt_cache_key and prompt_cache_options as they are",
    extra: { safety_identifier: "end-user-7", prompt_cache_key: "pck-1", prompt_cache_options: { mode: "explicit", ttl: "1h" } },
    field: "prompt_cache_options",
    carried: (body) => {
      expect(body.safety_identifier).toBe(digest("end-user-7"));
      expect(body.prompt_cache_key).toBe("pck-1");
      expect(body.prompt_cache_options).toEqual({ mode: "explicit", ttl: "1h" });
    },
  },
  {
    format: "chat",
    adapter: "openai",
    feature: "prompt_cache_key → prompt_cache_key (OpenAI's own cache routing)",
    extra: { prompt_cache_key: "pck-1" },
    field: "prompt_cache_key",
    carried: (body) => expect(body.prompt_cache_key).toBe("pck-1"),
  },
];

for (const cell of CELLS) {
  for (const stream of [false, true]) {
    describe(`${cell.format} → ${cell.adapter} (${stream ? "streamed" : "collected"})`, () => {
      test(`${cell.feature}; no warning`, async () => {
        c.fake.enqueue(replyOf(cell.adapter, "text", stream));
        const conv: Conversation = { model: MODEL[cell.adapter], turns: cell.turns ?? [user], stream, extra: cell.extra };
        const seen = await send(c.gw, cell.format, conv, { metadata: true });
        expect(seen.error).toBeUndefined();
        expect(seen.text).toBe("The capital of France is Paris.");
        cell.carried(upstreamCall(c.fake, cell.adapter, stream).body);
        const warnings = (seen.metadata?.warnings as Array<{ field?: string }> | undefined) ?? [];
        expect(warnings.map((w) => w.field)).not.toContain(cell.field);
      });
    });
  }
}

describe("trace is the gateway's own: never sent upstream", () => {
  for (const adapter of ["openai", "openai-responses", "anthropic", "gemini"] as const) {
    for (const stream of [false, true]) {
      test(`responses → ${adapter} (${stream ? "streamed" : "collected"})`, async () => {
        c.fake.enqueue(replyOf(adapter, "text", stream));
        const seen = await send(c.gw, "responses", { model: MODEL[adapter], turns: [user], stream, extra: { trace: { trace_name: "checkout-42" } } }, { metadata: true });
        expect(seen.error).toBeUndefined();
        expect(upstreamCall(c.fake, adapter, stream).body).not.toHaveProperty("trace");
        expect(c.fake.last().raw).not.toContain("checkout-42");
      });
    }
  }
});
