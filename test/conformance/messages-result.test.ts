/**
 * The Messages result has every field of the spec's table, and each Anthropic stop reason reaches
 * every format as that format says it (collected and streamed).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { fixture, replyOf, WIRE } from "../support/fake-upstream/fixtures.ts";
import type { Reply } from "../support/fake-upstream/server.ts";
import { send, type FormatId } from "./support/client.ts";
import { QUESTION } from "./support/matrix.ts";
import { expectedCost, MODEL, PROVIDER, startConformance, type Conformance } from "./support/setup.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

type Json = Record<string, unknown>;

/** The Anthropic `text` fixture with another stop reason (and stop sequence), as JSON or as a stream. */
function anthropicStop(stopReason: string, stream: boolean, stopSequence: string | null = null): Reply {
  const f = fixture("anthropic", "text");
  const path = WIRE.anthropic.path(stream);
  if (!stream) return { kind: "json", body: { ...(f.json as Json), stop_reason: stopReason, stop_sequence: stopSequence }, expectPath: path };
  const frames = f.sse.map((frame) => {
    const data = frame.data as Json;
    return data.type === "message_delta" ? { data: { ...data, delta: { stop_reason: stopReason, stop_sequence: stopSequence } } } : frame;
  });
  return { kind: "sse", frames, style: "named", expectPath: path };
}

describe("Messages result fields (spec table)", () => {
  test("every field, usage with cache counters and cost, provider, service_metadata when opted in", async () => {
    c.fake.enqueue(anthropicStop("end_turn", false));
    const res = await c.gw.request("/messages", {
      method: "POST",
      headers: { "x-service-metadata": "enabled" },
      json: { model: MODEL.anthropic, max_tokens: 256, messages: [{ role: "user", content: QUESTION }] },
    });
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(Object.keys(body).sort()).toEqual(
      ["id", "type", "role", "model", "content", "stop_reason", "stop_sequence", "stop_details", "container", "usage", "provider", "service_metadata"].sort(),
    );
    expect(body.id).toBe(res.headers.get("x-generation-id") as string);
    expect(body).toMatchObject({ type: "message", role: "assistant", model: MODEL.anthropic, stop_reason: "end_turn", stop_sequence: null, stop_details: null, container: null, provider: PROVIDER.anthropic });
    expect(body.content).toEqual([{ type: "text", text: "The capital of France is Paris.", citations: null }]);
    expect(body.usage).toEqual({
      input_tokens: 250,
      cache_creation_input_tokens: 50,
      cache_read_input_tokens: 1800,
      cache_creation: { ephemeral_5m_input_tokens: 50, ephemeral_1h_input_tokens: 0 },
      output_tokens: 50,
      output_tokens_details: null,
      server_tool_use: null,
      service_tier: "standard",
      inference_geo: null,
      cost: expectedCost({ input: 2100, cacheRead: 1800, cacheWrite: 50, output: 50, reasoning: 0 }),
      cost_details: {
        upstream_inference_cost: null,
        upstream_inference_prompt_cost: expect.any(Number),
        upstream_inference_completions_cost: expect.any(Number),
      },
    });
    const usage = body.usage as { cost: number; cost_details: { upstream_inference_prompt_cost: number; upstream_inference_completions_cost: number } };
    expect(usage.cost_details.upstream_inference_prompt_cost + usage.cost_details.upstream_inference_completions_cost).toBeCloseTo(usage.cost, 12);
    const metadata = body.service_metadata as Json;
    expect(metadata.requested).toBe(MODEL.anthropic);
    expect(metadata.attempt).toBe(1);
    expect((metadata.endpoints as { available: Json[] }).available).toContainEqual({ model: MODEL.anthropic, provider: PROVIDER.anthropic, selected: true });
  });

  for (const stream of [false, true]) {
    test(`citations on a text block pass through (${stream ? "streamed as citations_delta" : "collected"})`, async () => {
      const citation = { type: "char_location", cited_text: "Paris is the capital of France.", document_index: 0, document_title: "Atlas", start_char_index: 0, end_char_index: 31 };
      const f = fixture("anthropic", "text");
      if (stream) {
        const frames = f.sse.flatMap((frame) => {
          const data = frame.data as Json;
          const extra = { data: { type: "content_block_delta", index: 0, delta: { type: "citations_delta", citation } } };
          return data.type === "content_block_stop" ? [extra, frame] : [frame];
        });
        c.fake.enqueue({ kind: "sse", frames, style: "named", expectPath: WIRE.anthropic.path(true) });
      } else {
        const json = f.json as { content: Json[] };
        json.content = [{ type: "text", text: "The capital of France is Paris.", citations: [citation] }];
        c.fake.enqueue({ kind: "json", body: json, expectPath: WIRE.anthropic.path(false) });
      }
      const seen = await send(c.gw, "messages", { model: MODEL.anthropic, turns: [{ role: "user", text: QUESTION }], stream });
      const content = (seen.body as { content: Json[] }).content;
      expect(content).toEqual([{ type: "text", text: "The capital of France is Paris.", citations: [citation] }]);
    });
  }

  for (const stream of [false, true]) {
    test(`usage.service_tier is the tier the upstream reported (${stream ? "streamed" : "collected"})`, async () => {
      // Anthropic served the request on its priority tier; an OpenAI upstream's `default` tier is Anthropic's standard.
      const f = fixture("anthropic", "text");
      if (stream) {
        const frames = f.sse.map((frame) => {
          const data = frame.data as { type: string; message?: { usage: Json } };
          if (data.type === "message_start" && data.message) data.message.usage.service_tier = "priority";
          return frame;
        });
        c.fake.enqueue({ kind: "sse", frames, style: "named", expectPath: WIRE.anthropic.path(true) });
      } else {
        const json = f.json as { usage: Json };
        json.usage.service_tier = "priority";
        c.fake.enqueue({ kind: "json", body: json, expectPath: WIRE.anthropic.path(false) });
      }
      c.fake.enqueue(replyOf("openai", "text", stream));
      const priority = await send(c.gw, "messages", { model: MODEL.anthropic, turns: [{ role: "user", text: QUESTION }], stream });
      const standard = await send(c.gw, "messages", { model: MODEL.openai, turns: [{ role: "user", text: QUESTION }], stream });
      expect((priority.body as { usage: Json }).usage.service_tier).toBe("priority");
      expect((standard.body as { usage: Json }).usage.service_tier).toBe("standard");
    });
  }

  test("no service_metadata without the opt-in header", async () => {
    c.fake.enqueue(anthropicStop("end_turn", false));
    const seen = await send(c.gw, "messages", { model: MODEL.anthropic, turns: [{ role: "user", text: QUESTION }], stream: false });
    expect(seen.body).not.toHaveProperty("service_metadata");
  });
});

/** Anthropic's stop_reason → what each format shows (chat finish_reason, Responses status[:reason], Messages stop_reason). */
const STOP_TABLE: Array<[string, Record<FormatId, string>]> = [
  ["end_turn", { chat: "stop", responses: "completed", messages: "end_turn" }],
  ["max_tokens", { chat: "length", responses: "incomplete:max_output_tokens", messages: "max_tokens" }],
  ["stop_sequence", { chat: "stop", responses: "completed", messages: "stop_sequence" }],
  ["pause_turn", { chat: "stop", responses: "completed", messages: "pause_turn" }],
  ["refusal", { chat: "content_filter", responses: "incomplete:content_filter", messages: "refusal" }],
  ["model_context_window_exceeded", { chat: "length", responses: "incomplete:max_output_tokens", messages: "model_context_window_exceeded" }],
  ["compaction", { chat: "stop", responses: "completed", messages: "compaction" }],
];

describe("stop reasons across formats (Anthropic upstream)", () => {
  for (const [stopReason, expected] of STOP_TABLE) {
    for (const format of ["chat", "responses", "messages"] as const) {
      for (const stream of [false, true]) {
        test(`${stopReason} → ${format} ${expected[format]} (${stream ? "streamed" : "collected"})`, async () => {
          const sequence = stopReason === "stop_sequence" ? "\n\nHuman:" : null;
          c.fake.enqueue(anthropicStop(stopReason, stream, sequence));
          const seen = await send(c.gw, format, { model: MODEL.anthropic, turns: [{ role: "user", text: QUESTION }], stream });
          expect(seen.error).toBeUndefined();
          expect(seen.nativeFinish).toBe(expected[format]);
          if (format === "chat") {
            // The exact upstream value still reaches chat clients.
            const native = stream
              ? seen.frames.map((f) => (f.data && f.data !== "[DONE]" ? (JSON.parse(f.data) as { choices?: Array<{ native_finish_reason?: string }> }).choices?.[0]?.native_finish_reason : undefined)).find((v) => v)
              : (seen.body as { choices: Array<{ native_finish_reason: string }> }).choices[0]?.native_finish_reason;
            expect(native).toBe(stopReason);
          }
          if (format === "messages") {
            const body = seen.body as Json;
            expect(body.stop_sequence).toBe(sequence);
            // No upstream stop_details here, and the refused text is an ordinary text block: nothing to explain.
            expect(body.stop_details).toEqual(stopReason === "refusal" ? { type: "refusal", category: null, explanation: null } : null);
          }
        });
      }
    }
  }
});
