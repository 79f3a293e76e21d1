/**
 * The Messages stream is the named-event sequence Anthropic clients expect (`message_start`,
 * `content_block_start|delta|stop` with text / thinking / signature / input_json deltas, `message_delta` with stop
 * reason and usage, `message_stop`), over every adapter, with `event: ping` keep-alives while the upstream is slow.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ADAPTERS, firstOutputFrame, fixture, replyOf, wireFamily } from "../support/fake-upstream/fixtures.ts";
import type { SseReply } from "../support/fake-upstream/server.ts";
import { frameJson, send, WEATHER_TOOL, type Frame } from "./support/client.ts";
import { QUESTION, WEATHER_QUESTION } from "./support/matrix.ts";
import { MODEL, startConformance, type Conformance } from "./support/setup.ts";

type Json = Record<string, unknown>;

/** The `type` of each data frame, with the delta kind for content_block_delta (`content_block_delta:text_delta`). */
function shape(frames: Frame[]): string[] {
  return frames.flatMap((f) => {
    const data = frameJson(f);
    if (!data) return [];
    const delta = data.type === "content_block_delta" ? `:${String((data.delta as Json).type)}` : "";
    const block = data.type === "content_block_start" ? `:${String((data.content_block as Json).type)}` : "";
    return [`${String(data.type)}${delta}${block}`];
  });
}

/** Collapses runs of the same entry (`a, b, b, b, c` → `a, b+, c`) so sequences read like a grammar. */
function runs(list: string[]): string[] {
  const out: string[] = [];
  for (const item of list) {
    const last = out.at(-1);
    if (last === item || last === `${item}+`) out[out.length - 1] = `${item}+`;
    else out.push(item);
  }
  return out;
}

describe("event sequence (every adapter)", () => {
  let c: Conformance;
  beforeAll(async () => void (c = await startConformance()));
  afterAll(() => c.close());
  beforeEach(() => c.fake.reset());

  for (const adapter of ADAPTERS) {
    test(`${adapter}: text — every frame named after its data type, indexes from 0, no [DONE]`, async () => {
      c.fake.enqueue(replyOf(adapter, "text", true));
      const seen = await send(c.gw, "messages", { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream: true });
      const data = seen.frames.filter((f) => f.data !== undefined);
      for (const frame of data) expect(frame.event).toBe(String(frameJson(frame)?.type));
      expect(data.some((f) => f.data === "[DONE]")).toBe(false);
      expect(runs(shape(seen.frames))).toEqual([
        "message_start",
        "content_block_start:text",
        "content_block_delta:text_delta+",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ]);
      const start = frameJson(data[0] as Frame) as { message: Json };
      expect(start.message).toMatchObject({ type: "message", role: "assistant", model: MODEL[adapter], content: [], stop_reason: null });
      expect(typeof start.message.id).toBe("string");
      const delta = frameJson(data.at(-2) as Frame) as { delta: Json; usage: Json };
      expect(delta.delta.stop_reason).toBe("end_turn");
      expect(delta.usage.output_tokens).toBe(fixture(adapter, "text").expect.usage?.output);
      expect(typeof delta.usage.cost).toBe("number");
      for (const f of data) {
        const d = frameJson(f) as Json;
        if ("index" in d) expect(d.index).toBe(0);
      }
    });

    // Clients such as LangChain's ChatAnthropic read input tokens only from message_start.
    const early = wireFamily(adapter) === "anthropic" || wireFamily(adapter) === "gemini";
    test(`${adapter}: message_start carries the prompt tokens ${early ? "the upstream reported before the first token" : "as 0 (this upstream counts them at the end)"}`, async () => {
      c.fake.enqueue(replyOf(adapter, "text", true));
      const seen = await send(c.gw, "messages", { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream: true });
      const data = seen.frames.map(frameJson).filter((d): d is Json => d !== undefined);
      const start = (data.find((d) => d.type === "message_start")?.message as Json).usage as Json;
      const final = data.find((d) => d.type === "message_delta")?.usage as Json;
      const usage = fixture(adapter, "text").expect.usage!;
      expect(final.input_tokens).toBe(usage.input - usage.cacheRead - usage.cacheWrite);
      expect(start.input_tokens).toBe(early ? final.input_tokens : 0);
      expect(start.cache_read_input_tokens).toBe(early ? usage.cacheRead : 0);
      // Anthropic's own message_start says output_tokens 1; passed on as it came.
      expect(start.output_tokens).toBe(wireFamily(adapter) === "anthropic" ? 1 : 0);
    });

    test(`${adapter}: thinking then tool use — thinking, signature and input_json deltas in their own blocks`, async () => {
      c.fake.enqueue(replyOf(adapter, "thinking", true));
      const seen = await send(c.gw, "messages", { model: MODEL[adapter], turns: [{ role: "user", text: WEATHER_QUESTION }], tools: [WEATHER_TOOL], stream: true });
      // Gemini sends a call's arguments whole (one delta); the others stream fragments.
      const events = runs(shape(seen.frames)).map((e) => e.replace("input_json_delta+", "input_json_delta"));
      // Reasoning that carries state has a signature; plain reasoning text (Azure's reasoning_content) has none.
      const signed = fixture(adapter, "thinking").expect.carry !== undefined;
      expect(events).toEqual([
        "message_start",
        "content_block_start:thinking",
        "content_block_delta:thinking_delta+",
        ...(signed ? ["content_block_delta:signature_delta"] : []),
        "content_block_stop",
        "content_block_start:tool_use",
        "content_block_delta:input_json_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
      ]);
      const starts = seen.frames.map(frameJson).filter((d): d is Json => d?.type === "content_block_start");
      expect(starts.map((d) => d.index)).toEqual([0, 1]);
      expect(starts[1]?.content_block).toEqual({ type: "tool_use", id: fixture(adapter, "thinking").expect.toolCalls?.[0]?.id, name: "get_weather", input: {} });
      const message = seen.body as { content: Json[]; stop_reason: string };
      expect(message.stop_reason).toBe("tool_use");
      expect(message.content[0]?.type).toBe("thinking");
      if (signed) expect((message.content[0]?.signature as string).length).toBeGreaterThan(10);
      else expect(message.content[0]?.signature).toBe("");
    });
  }
});

describe("ping keep-alives while the upstream is slow (server.keep_alive_ms = 100)", () => {
  let c: Conformance;
  beforeAll(async () => void (c = await startConformance({ keep_alive_ms: 100 })));
  afterAll(() => c.close());
  beforeEach(() => c.fake.reset());

  /** The text stream with a pause after its first output (`message_start` for Anthropic, the first text delta else). */
  function slow(adapter: "anthropic" | "openai", afterFirstOutput = true): SseReply {
    const reply = replyOf(adapter, "text", true) as SseReply;
    const index = wireFamily(adapter) === "anthropic" || !afterFirstOutput ? 1 : firstOutputFrame(adapter) + 1;
    return { ...reply, pause: { index, ms: 320 } };
  }

  test("messages: `event: ping` frames arrive during the silence, and the stream still completes", async () => {
    c.fake.enqueue(slow("anthropic"));
    const started = performance.now();
    const seen = await send(c.gw, "messages", { model: MODEL.anthropic, turns: [{ role: "user", text: QUESTION }], stream: true });
    expect(performance.now() - started).toBeGreaterThanOrEqual(300);
    const pings = seen.frames.filter((f) => f.event === "ping");
    expect(pings.length).toBeGreaterThanOrEqual(2);
    for (const ping of pings) expect(frameJson(ping)).toEqual({ type: "ping" });
    // Pings sit between message_start and the first content block, never before message_start.
    const names = seen.frames.map((f) => f.event);
    expect(names[0]).toBe("message_start");
    expect(names.indexOf("ping")).toBeLessThan(names.indexOf("content_block_start"));
    expect(names.at(-1)).toBe("message_stop");
    expect(seen.text).toBe("The capital of France is Paris.");
    expect(seen.frames.some((f) => f.comment !== undefined)).toBe(false);
  });

  test("chat: SSE comment keep-alives (`: SERVICE PROCESSING`) instead of pings", async () => {
    c.fake.enqueue(slow("openai"));
    const seen = await send(c.gw, "chat", { model: MODEL.openai, turns: [{ role: "user", text: QUESTION }], stream: true });
    expect(seen.frames.filter((f) => f.comment === "SERVICE PROCESSING").length).toBeGreaterThanOrEqual(2);
    expect(seen.frames.some((f) => f.event === "ping")).toBe(false);
    expect(seen.text).toBe("The capital of France is Paris.");
    expect(seen.ended).toBe(true);
  });

  // While a slow upstream thinks before its first token, the client gets its headers after keep_alive_ms and
  // keep-alive comments from then on; fallbacks stay possible until content is sent.
  test("chat over a chat-completions upstream: keep-alives while waiting for the first output token", async () => {
    c.fake.enqueue(slow("openai", false));
    const seen = await send(c.gw, "chat", { model: MODEL.openai, turns: [{ role: "user", text: QUESTION }], stream: true });
    // Headers go out at the 100 ms commit point, so of the 320 ms silence ~220 ms remain: one or two keep-alive
    // intervals depending on load. Any keep-alive before the first token proves the behaviour.
    expect(seen.frames.filter((f) => f.comment === "SERVICE PROCESSING").length).toBeGreaterThanOrEqual(1);
    expect(seen.text).toBe("The capital of France is Paris.");
  });
});
