/**
 * Perplexity's sources as citations in each inbound format (openai client: chat and Responses; Anthropic client:
 * Messages), collected and streamed; OpenRouter as an upstream through the `@openrouter/sdk` client: its cost, its
 * `reasoning_details` (signature included) round trip, the reasoning object and the provider-routing preferences.
 */
import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type FakeCompatible, startFakeCompatible } from "../../support/fake-compatible/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { chatChunks, chatOnce, sdkClient, type SdkRig } from "../../support/openrouter-sdk.ts";
import { KIND_PRICING, providerEntry } from "../../conformance/support/kinds.ts";

let fake: FakeCompatible;
let gw: TestGateway;
let openai: OpenAI;
let anthropic: Anthropic;
let or: SdkRig;

beforeAll(async () => {
  fake = await startFakeCompatible();
  const entry = (kind: "perplexity" | "openrouter", model: string, upstream: string, options: Record<string, unknown> = {}) => ({
    ...providerEntry(fake, kind),
    options,
    // Declared zero-retention: a request asking for ZDR may use it (and OpenRouter is asked for it too).
    models: [{ id: model, upstream_model: upstream, pricing: KIND_PRICING, zdr: true }],
  });
  gw = await startTestGateway({
    file: {
      providers: [
        entry("perplexity", "pplx/sonar", "sonar"),
        entry("openrouter", "or/claude", "anthropic/claude-sonnet-4.5", { provider: { data_collection: "deny", order: ["anthropic", "google-vertex"] } }),
      ],
      routing: { max_retries: 0 },
    },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
  anthropic = new Anthropic({ baseURL: `${gw.origin}/api`, apiKey: gw.inferenceKey, maxRetries: 0 });
  or = sdkClient(gw, gw.inferenceKey);
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

type Json = Record<string, unknown>;
const sent = (): Json => fake.lastChat().body;

describe("Perplexity: citations and search_results become url_citation annotations in every format", () => {
  const text = "Paris is the capital of France [1], on the Seine [2].";
  const sources = [
    { url: "https://en.wikipedia.org/wiki/Paris", title: "Paris - Wikipedia", snippet: "Paris is the capital and largest city of France." },
    { url: "https://www.britannica.com/place/Seine-River", title: "Seine River | Britannica" },
    { url: "https://www.paris.fr/", title: "Paris.fr" },
  ];
  const marker = (n: number) => [text.indexOf(`[${n}]`), text.indexOf(`[${n}]`) + 3];

  for (const stream of [false, true]) {
    test(`chat (${stream ? "streamed" : "collected"}): message.annotations, each marker over its span, unmarked sources too`, async () => {
      fake.answer({ text, sources });
      let annotations: unknown[] | undefined;
      let content = "";
      if (stream) {
        const s = await openai.chat.completions.create({ model: "pplx/sonar", messages: [{ role: "user", content: "Capital of France?" }], stream: true });
        for await (const chunk of s) {
          content += chunk.choices[0]?.delta.content ?? "";
          const delta = chunk.choices[0]?.delta as { annotations?: unknown[] } | undefined;
          if (delta?.annotations) annotations = [...(annotations ?? []), ...delta.annotations];
        }
      } else {
        const reply = await openai.chat.completions.create({ model: "pplx/sonar", messages: [{ role: "user", content: "Capital of France?" }] });
        content = reply.choices[0]!.message.content ?? "";
        annotations = reply.choices[0]!.message.annotations;
      }
      expect(content).toBe(text);
      const [s1, e1] = marker(1);
      const [s2, e2] = marker(2);
      expect(annotations).toEqual([
        { type: "url_citation", url_citation: { url: sources[0]!.url, title: sources[0]!.title, content: sources[0]!.snippet, start_index: s1, end_index: e1 } },
        { type: "url_citation", url_citation: { url: sources[1]!.url, title: sources[1]!.title, start_index: s2, end_index: e2 } },
        { type: "url_citation", url_citation: { url: sources[2]!.url, title: sources[2]!.title, start_index: 0, end_index: 0 } },
      ]);
    });

    test(`Responses (${stream ? "streamed" : "collected"}): output_text annotations`, async () => {
      fake.answer({ text, sources });
      let output: OpenAI.Responses.Response;
      if (stream) output = await openai.responses.stream({ model: "pplx/sonar", input: "Capital of France?" }).finalResponse();
      else output = await openai.responses.create({ model: "pplx/sonar", input: "Capital of France?" });
      const message = output.output.find((item): item is OpenAI.Responses.ResponseOutputMessage => item.type === "message")!;
      const part = message.content[0] as OpenAI.Responses.ResponseOutputText;
      expect(part.text).toBe(text);
      expect(part.annotations.map((a) => [a.type, (a as { url?: string }).url, (a as { start_index?: number }).start_index])).toEqual([
        ["url_citation", sources[0]!.url, marker(1)[0]],
        ["url_citation", sources[1]!.url, marker(2)[0]],
        ["url_citation", sources[2]!.url, 0],
      ]);
    });

    test(`Messages (${stream ? "streamed" : "collected"}): text block citations with the cited text`, async () => {
      fake.answer({ text, sources });
      const request = { model: "pplx/sonar", max_tokens: 256, messages: [{ role: "user" as const, content: "Capital of France?" }] };
      const message = stream ? await anthropic.messages.stream(request).finalMessage() : await anthropic.messages.create(request);
      const block = message.content[0] as Anthropic.TextBlock;
      expect(block.text).toBe(text);
      expect(block.citations?.map((c) => [c.type, (c as Anthropic.CitationsWebSearchResultLocation).url, c.cited_text])).toEqual([
        ["web_search_result_location", sources[0]!.url, "[1]"],
        ["web_search_result_location", sources[1]!.url, "[2]"],
        ["web_search_result_location", sources[2]!.url, ""],
      ]);
    });
  }

  test("its searches and its own cost reach the usage", async () => {
    fake.answer({ text, sources });
    const reply = await openai.chat.completions.create({ model: "pplx/sonar", messages: [{ role: "user", content: "Capital of France?" }] });
    const usage = reply.usage as OpenAI.CompletionUsage & { cost_details?: { upstream_inference_cost?: number }; server_tool_use?: Json };
    expect(usage.cost_details?.upstream_inference_cost).toBeCloseTo(0.00503, 10);
    expect(sent()).toHaveProperty("messages");
  });
});

describe("OpenRouter as an upstream (@openrouter/sdk client)", () => {
  test("usage.cost is carried as the upstream cost; its provider preferences and the request's travel on", async () => {
    const result = await chatOnce(or.sdk, {
      model: "or/claude",
      messages: [{ role: "user", content: "Hi" }],
      provider: { order: ["lt-openrouter", "amazon-bedrock"], sort: "price", zdr: true },
    });
    expect(result.choices[0]!.message.content).toBe("The capital of France is Paris.");
    const usage = (or.bodies.at(-1) as { usage: { cost: number; cost_details: { upstream_inference_cost: number } } }).usage;
    expect(usage.cost_details.upstream_inference_cost).toBeCloseTo(0.000321, 10);
    expect(usage.cost).toBeCloseTo(20 * KIND_PRICING.prompt + 9 * KIND_PRICING.completion, 12);
    // The entry's preferences, the request's over them; this gateway's own provider id left out of the slug list.
    expect(sent().provider).toEqual({ data_collection: "deny", order: ["amazon-bedrock"], sort: "price", zdr: true });
  });

  test("reasoning: its reasoning object carries effort and summary; reasoning_details with their signature come back and go back", async () => {
    fake.answer({ reasoning: "Consider the map.", text: "Paris." });
    const chunks = await chatChunks(or.sdk, { model: "or/claude", messages: [{ role: "user", content: "Capital?" }], reasoning: { effort: "high", summary: "concise" } });
    expect(sent().reasoning).toEqual({ effort: "high", summary: "concise" });
    expect(sent()).not.toHaveProperty("reasoning_effort");
    const details = chunks.flatMap((c) => (c.choices[0]?.delta as { reasoningDetails?: Array<Record<string, unknown>> } | undefined)?.reasoningDetails ?? []);
    expect(details.map((d) => d.text ?? "").join("")).toBe("Consider the map.");
    expect(details.some((d) => d.signature === "sig-or-1")).toBe(true);
    // The next turn sends the reasoning back with its signature (OpenRouter passes it to Anthropic).
    fake.answer({ reasoning: "Consider the map.", text: "Paris." });
    const first = await chatOnce(or.sdk, { model: "or/claude", messages: [{ role: "user", content: "Capital?" }], reasoning: { effort: "high" } });
    const message = first.choices[0]!.message;
    await chatOnce(or.sdk, { model: "or/claude", messages: [{ role: "user", content: "Capital?" }, message as never, { role: "user", content: "Sure?" }] });
    const assistant = (sent().messages as Json[])[1]!;
    expect(assistant.reasoning_details).toEqual([expect.objectContaining({ type: "reasoning.text", text: "Consider the map.", signature: "sig-or-1" })]);
  });
});
