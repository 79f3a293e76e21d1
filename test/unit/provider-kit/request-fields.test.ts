/** At the translators: each field is carried in the upstream's dialect or warned, never dropped silently. */
import { describe, expect, test } from "bun:test";
import type { CanonicalRequest } from "../../../core/model/request.ts";
import { toAnthropicBody } from "../../../providers/anthropic/request.ts";
import { toGeminiBody } from "../../../providers/gemini/request.ts";
import { toResponsesBody } from "../../../providers/openai-responses/request.ts";
import { toChatBody } from "../../../providers/openai/request.ts";
import { canonicalRequest, target } from "../providers/helpers.ts";

type Adapter = "openai" | "openai-responses" | "anthropic" | "gemini";
const build: Record<Adapter, (r: CanonicalRequest) => Record<string, unknown>> = {
  openai: (r) => toChatBody(r, target(), false) as Record<string, unknown>,
  "openai-responses": (r) => toResponsesBody(r, target(), false) as unknown as Record<string, unknown>,
  anthropic: (r) => toAnthropicBody(r, target(), false) as Record<string, unknown>,
  gemini: (r) => toGeminiBody(r, target({ upstreamModel: "gemini-2.5-flash" })) as unknown as Record<string, unknown>,
};
const HASH = "a".repeat(64);

function run(adapter: Adapter, overrides: Partial<CanonicalRequest>) {
  const request = canonicalRequest(overrides);
  const body = build[adapter](request);
  return { body, fields: request.warnings.map((w) => w.field) };
}

describe("speed: Anthropic carries it, the others warn", () => {
  test("anthropic sends speed", () => expect(run("anthropic", { speed: "fast" }).body.speed).toBe("fast"));
  for (const adapter of ["openai", "openai-responses", "gemini"] as const) {
    test(adapter, () => {
      const { body, fields } = run(adapter, { speed: "fast" });
      expect(JSON.stringify(body)).not.toContain("fast");
      expect(fields).toContain("speed");
    });
  }
});

describe("safety_identifier (already hashed)", () => {
  test("OpenAI's own fields on both OpenAI dialects", () => {
    expect(run("openai", { safetyIdentifier: HASH }).body.safety_identifier).toBe(HASH);
    expect(run("openai-responses", { safetyIdentifier: HASH }).body.safety_identifier).toBe(HASH);
  });
  test("anthropic: metadata.user_id; with `user` also set, user keeps it and the identifier is warned", () => {
    expect(run("anthropic", { safetyIdentifier: HASH }).body.metadata).toEqual({ user_id: HASH });
    const both = run("anthropic", { safetyIdentifier: HASH, user: "u-1" });
    expect(both.body.metadata).toEqual({ user_id: "u-1" });
    expect(both.fields).toContain("safety_identifier");
  });
  test("gemini has no place: warned", () => {
    const { body, fields } = run("gemini", { safetyIdentifier: HASH });
    expect(JSON.stringify(body)).not.toContain(HASH);
    expect(fields).toContain("safety_identifier");
  });
});

describe("prompt cache key and options", () => {
  const cache = { promptCacheKey: "pck", options: { mode: "explicit", ttl: "1h" } };
  test("openai-responses carries both", () => {
    const { body, fields } = run("openai-responses", { cache });
    expect(body.prompt_cache_key).toBe("pck");
    expect(body.prompt_cache_options).toEqual(cache.options);
    expect(fields).toEqual([]);
  });
  test("anthropic: mode explicit alone is its own behaviour; a key or a ttl is warned", () => {
    expect(run("anthropic", { cache: { options: { mode: "explicit" } } }).fields).toEqual(["max_tokens"]);
    expect(run("anthropic", { cache }).fields).toEqual(expect.arrayContaining(["prompt_cache_key", "prompt_cache_options"]));
  });
  test("gemini: both warned", () => {
    expect(run("gemini", { cache }).fields).toEqual(expect.arrayContaining(["prompt_cache_key", "prompt_cache_options"]));
  });
});

describe("modalities", () => {
  test("gemini: responseModalities in its upper-case names", () => {
    expect((run("gemini", { modalities: ["text", "image"] }).body.generationConfig as Record<string, unknown>).responseModalities).toEqual(["TEXT", "IMAGE"]);
  });
  test("anthropic: text alone is fine; anything else is warned", () => {
    expect(run("anthropic", { modalities: ["text"] }).fields).not.toContain("modalities");
    expect(run("anthropic", { modalities: ["text", "image"] }).fields).toContain("modalities");
  });
  test("openai-responses: audio is warned as image is", () => {
    expect(run("openai-responses", { modalities: ["text", "audio"] }).fields).toContain("modalities");
  });
});

describe("message name", () => {
  const messages: CanonicalRequest["messages"] = [{ role: "user", name: "alice", parts: [{ type: "text", text: "Hi" }] }];
  test("openai sends it", () => expect((run("openai", { messages }).body.messages as Array<Record<string, unknown>>)[0]?.name).toBe("alice"));
  for (const adapter of ["openai-responses", "anthropic", "gemini"] as const) {
    test(`${adapter} warns once`, () => {
      const { body, fields } = run(adapter, { messages: [...messages, ...messages] });
      expect(JSON.stringify(body)).not.toContain("alice");
      expect(fields.filter((f) => f === "messages.name")).toHaveLength(1);
    });
  }
});

describe("tool async", () => {
  const tools: CanonicalRequest["tools"] = [{ kind: "function", name: "get_weather", async: true }];
  test("openai-responses sends it", () => expect((run("openai-responses", { tools }).body.tools as Array<Record<string, unknown>>)[0]?.async).toBe(true));
  for (const adapter of ["openai", "gemini", "anthropic"] as const) {
    test(`${adapter} sends the tool, warns the flag`, () => {
      const { body, fields } = run(adapter, { tools });
      expect(JSON.stringify(body)).toContain("get_weather");
      expect(JSON.stringify(body)).not.toContain("async");
      expect(fields).toContain("tools[0].async");
    });
  }
});

test("openai-responses: another format's extras (chat prediction, top_a) are warned, not dropped", () => {
  const { body, fields } = run("openai-responses", { format: "chat", passthrough: { prediction: { type: "content", content: "x" }, top_a: 0.2 } });
  expect(body).not.toHaveProperty("prediction");
  expect(fields).toEqual(expect.arrayContaining(["prediction", "top_a"]));
});

test("trace is never an upstream field", () => {
  for (const adapter of ["openai", "openai-responses", "anthropic", "gemini"] as const) {
    expect(JSON.stringify(run(adapter, { trace: { trace_name: "checkout-42" } }).body)).not.toContain("checkout-42");
  }
});
