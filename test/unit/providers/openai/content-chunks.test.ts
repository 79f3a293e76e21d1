/**
 * providers/openai/content-chunks.ts inside chatStreamToEvents: a stream read with the light path gives exactly the
 * events of the same stream with every chunk parsed whole (a kind's `chunk` hook turns the light path off, so the
 * same function runs both ways); and the light path is taken where it should be, and only there.
 */
import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../../core/model/events.ts";
import { parseSse } from "../../../../core/provider-kit/sse.ts";
import { ContentChunks } from "../../../../providers/openai/content-chunks.ts";
import { chatStreamToEvents } from "../../../../providers/openai/stream.ts";
import type { ChatCompletion } from "../../../../providers/openai/wire.ts";
import { drain, providerCall, streamOf, target } from "../helpers.ts";

const call = providerCall({ target: target({ providerId: "openai-main", upstreamModel: "gpt-4o" }) });
const head = { id: "chatcmpl-123", object: "chat.completion.chunk", created: 1694268190, model: "gpt-4o-mini", system_fingerprint: "fp_1" };
const delta = (d: Record<string, unknown>, finish_reason: string | null = null, extra: Record<string, unknown> = {}) => ({ ...head, ...extra, choices: [{ index: 0, delta: d, logprobs: null, finish_reason }] });
const usage = { ...head, choices: [], usage: { prompt_tokens: 9, completion_tokens: 2, total_tokens: 11 } };

/** Both ways over the same wire text: [light path, whole parse]. */
async function bothWays(wire: string, pieces = 7): Promise<[StreamEvent[], StreamEvent[]]> {
  // Cut the bytes into uneven reads, as a socket does.
  const bytes = new TextEncoder().encode(wire);
  const reads: Uint8Array[] = [];
  for (let at = 0, n = 0; at < bytes.length; n++) {
    const size = 1 + ((n * 37) % Math.max(2, Math.floor(bytes.length / pieces)));
    reads.push(bytes.slice(at, at + size));
    at += size;
  }
  const light = await drain(chatStreamToEvents(parseSse(streamOf(reads)), call));
  const whole = await drain(chatStreamToEvents(parseSse(streamOf(reads)), call, { chunk: () => undefined }));
  return [light, whole];
}

const frame = (chunk: unknown) => `data: ${typeof chunk === "string" ? chunk : JSON.stringify(chunk)}\n\n`;

describe("content chunks: the light path equals the whole parse", () => {
  const texts = ["Hello", " world", "", 'with "quotes"', "back\\slash", "tab\tand\nnewline", "émoji 🎉", "\u2028sep", "</script>", "plain again", "content\":\"x", "last"];
  test("text with every kind of character, then finish and usage", async () => {
    const wire = [delta({ role: "assistant", content: "" }), ...texts.map((t) => delta({ content: t })), delta({}, "stop"), usage].map(frame).join("") + frame("[DONE]");
    const [light, whole] = await bothWays(wire);
    expect(light).toEqual(whole);
    expect(light.filter((e) => e.type === "text-delta").map((e) => (e as { delta: string }).delta)).toEqual(texts.filter((t) => t !== ""));
  });

  test("escapes written differently from JSON.stringify (\\u00e9, \\/) read the same", async () => {
    const raw = (content: string) => `data: {"id":"chatcmpl-123","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":"${content}"},"finish_reason":null}]}\n\n`;
    const wire = raw("first") + raw("caf\\u00e9") + raw("a\\/b") + raw("plain") + raw("\\ud83c\\udf89") + frame(delta({}, "stop")) + frame("[DONE]");
    const [light, whole] = await bothWays(wire);
    expect(light).toEqual(whole);
    expect(light.filter((e) => e.type === "text-delta").map((e) => (e as { delta: string }).delta)).toEqual(["first", "café", "a/b", "plain", "🎉"]);
  });

  test("shapes that change mid-stream: another id, tool calls, reasoning, logprobs, refusal, an in-band error", async () => {
    const chunks = [
      delta({ content: "one" }),
      delta({ content: "two" }),
      delta({ content: "three" }, null, { id: "chatcmpl-other" }),
      delta({ content: "four", reasoning: "hmm" }),
      { ...head, choices: [{ index: 0, delta: { content: "five" }, logprobs: { content: [{ token: "five", logprob: -1, bytes: null, top_logprobs: [] }] }, finish_reason: null }] },
      delta({ content: "six" }),
      delta({ tool_calls: [{ index: 0, id: "call_1", type: "function", function: { name: "f", arguments: '{"a":' } }] }),
      delta({ tool_calls: [{ index: 0, function: { arguments: "1}" } }] }),
      delta({ content: "seven" }),
      delta({ refusal: "no" }),
      delta({ content: "eight" }),
      { ...head, choices: [{ index: 0, delta: { content: "nine" }, finish_reason: "length" }] },
      usage,
    ];
    const [light, whole] = await bothWays(chunks.map(frame).join("") + frame("[DONE]"));
    expect(light).toEqual(whole);
    const error = [delta({ content: "a" }), delta({ content: "b" }), { ...head, error: { code: 500, message: "boom" }, choices: [{ index: 0, delta: { content: "c" }, finish_reason: null }] }];
    const [lightError, wholeError] = await bothWays(error.map(frame).join(""));
    expect(lightError).toEqual(wholeError);
    expect(lightError.at(-1)?.type).toBe("error");
  });

  test("malformed data after the shape was learned fails the same way", async () => {
    const wire = frame(delta({ content: "a" })) + frame(delta({ content: "b" })) + frame(JSON.stringify(delta({ content: "c" })).replace('"c"', '"c\u0001"')) + frame("[DONE]");
    const [light, whole] = await bothWays(wire);
    expect(light).toEqual(whole);
    expect(light.at(-1)).toMatchObject({ type: "error" });
  });
});

describe("ContentChunks", () => {
  const data = (content: string, extra: Record<string, unknown> = {}) => JSON.stringify(delta({ content }, null, extra));
  const learned = () => {
    const chunks = new ContentChunks();
    chunks.learn(data("first"), JSON.parse(data("first")) as ChatCompletion);
    return chunks;
  };

  test("reads a chunk of the learned shape without parsing it, and nothing else", () => {
    const chunks = learned();
    expect(chunks.read(data("next"))).toEqual({ choices: [{ index: 0, delta: { content: "next" } }] });
    expect(chunks.read(data(""))).toEqual({ choices: [{ index: 0, delta: { content: "" } }] });
    expect(chunks.read(data('say "hi"'))).toBeUndefined(); // escaped: parsed whole
    expect(chunks.read(data("x", { id: "other" }))).toBeUndefined();
    expect(chunks.read(JSON.stringify(delta({ content: "x" }, "stop")))).toBeUndefined();
  });

  test("learns only from a chunk whose delta is a content string alone", () => {
    for (const chunk of [delta({ content: "a", role: "assistant" }), delta({ content: "a" }, "stop"), { ...delta({ content: "a" }), usage: { prompt_tokens: 1 } }, delta({ tool_calls: [] })]) {
      const chunks = new ContentChunks();
      chunks.learn(JSON.stringify(chunk), chunk as ChatCompletion);
      expect(chunks.read(data("b"))).toBeUndefined();
    }
  });

  test("a content key elsewhere in the chunk does not mislead it", () => {
    // `logprobs.content` after the delta: the last `"content":` is not the delta's.
    const chunk = { ...head, choices: [{ index: 0, delta: { content: "a" }, logprobs: { content: null }, finish_reason: null }] };
    const chunks = new ContentChunks();
    chunks.learn(JSON.stringify(chunk), chunk as ChatCompletion);
    const next = JSON.stringify({ ...chunk, choices: [{ ...chunk.choices[0], delta: { content: "b" } }] });
    expect(chunks.read(next)).toBeUndefined();
  });
});
