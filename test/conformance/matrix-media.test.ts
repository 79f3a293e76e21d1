/**
 * Translation matrix, generated media: generated images and audio come back. Each upstream that
 * makes them (OpenAI chat `message.images` / `message.audio`, OpenAI Responses `image_generation_call`, Gemini
 * `inlineData`) answers from the loopback fake in its real wire shape, streamed and not; the official clients read
 * them back in every format: chat `message.images` / `message.audio` (streamed `delta.images` / `delta.audio`),
 * Responses `image_generation_call` items, Messages `image` blocks. Audio, which Responses and Messages cannot
 * carry, is a warning there. Anthropic makes neither, so it has no cells here.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { MODEL, startConformance, type Conformance } from "./support/setup.ts";
import { AUDIO_BASE64, AUDIO_EXPIRES, AUDIO_ID, mediaReply, PNG_BASE64, PNG_URL, TRANSCRIPT, type MediaAdapter } from "../support/fake-upstream/media-replies.ts";

type Json = Record<string, any>;

let conf: Conformance;
let openai: OpenAI;
let anthropic: Anthropic;

beforeAll(async () => {
  conf = await startConformance();
  const headers = { "X-Service-Metadata": "enabled" };
  openai = new OpenAI({ baseURL: conf.gw.baseUrl, apiKey: conf.gw.inferenceKey, maxRetries: 0, defaultHeaders: headers });
  anthropic = new Anthropic({ baseURL: conf.gw.baseUrl.replace(/\/v1$/, ""), apiKey: conf.gw.inferenceKey, maxRetries: 0, defaultHeaders: headers });
});
afterAll(() => conf.close());
beforeEach(() => conf.fake.reset());

const ADAPTERS: MediaAdapter[] = ["openai", "openai-responses", "gemini"];

/** What chat's `message.audio` must be for each upstream (Responses upstreams make no audio). */
const AUDIO: Record<MediaAdapter, Json | undefined> = {
  openai: { id: AUDIO_ID, data: AUDIO_BASE64, transcript: TRANSCRIPT, expires_at: AUDIO_EXPIRES },
  "openai-responses": undefined,
  gemini: { data: AUDIO_BASE64, format: "pcm16" },
};

const ask = (adapter: MediaAdapter) => ({ model: MODEL[adapter], messages: [{ role: "user" as const, content: "Draw and say hello" }] });
const warningsOf = (metadata: Json | undefined): string[] => ((metadata?.warnings ?? []) as Json[]).map((w) => w.message as string);

describe("chat completions (openai client)", () => {
  for (const adapter of ADAPTERS) {
    test(`${adapter}: message.images and message.audio`, async () => {
      conf.fake.enqueue(mediaReply(adapter, false));
      const completion = (await openai.chat.completions.create({ ...ask(adapter), modalities: ["text", "audio"], audio: { voice: "alloy", format: "wav" } })) as unknown as Json;
      const message = completion.choices[0].message;
      expect(message.content).toBe("The capital of France is Paris.");
      expect(message.images).toEqual([{ type: "image_url", image_url: { url: PNG_URL } }]);
      expect(message.audio ?? undefined).toEqual(AUDIO[adapter]);
    });

    test(`${adapter} streamed: delta.images, and delta.audio pieces that join into the audio`, async () => {
      conf.fake.enqueue(mediaReply(adapter, true));
      const stream = await openai.chat.completions.create({ ...ask(adapter), stream: true });
      const images: Json[] = [];
      const audio: Json = {};
      const bytes: Buffer[] = [];
      let text = "";
      for await (const chunk of stream) {
        const delta = chunk.choices[0]?.delta as Json | undefined;
        text += delta?.content ?? "";
        images.push(...(delta?.images ?? []));
        const piece = delta?.audio as Json | undefined;
        if (piece === undefined) continue;
        // As a client plays streamed audio: each piece's base64 decoded on its own, transcript fragments appended.
        if (piece.data !== undefined) bytes.push(Buffer.from(piece.data, "base64"));
        if (piece.transcript !== undefined) audio.transcript = (audio.transcript ?? "") + piece.transcript;
        for (const key of ["id", "expires_at", "format"]) if (piece[key] !== undefined) audio[key] = piece[key];
      }
      expect(text).toBe("The capital of France is Paris.");
      expect(images).toEqual([{ type: "image_url", image_url: { url: PNG_URL }, index: 0 }]);
      if (bytes.length > 0) audio.data = Buffer.concat(bytes).toString("base64");
      expect(Object.keys(audio).length === 0 ? undefined : audio).toEqual(AUDIO[adapter]);
    });
  }

  test("the chat upstream is sent the client's modalities and audio settings", async () => {
    conf.fake.enqueue(mediaReply("openai", false));
    await openai.chat.completions.create({ ...ask("openai"), modalities: ["text", "audio"], audio: { voice: "alloy", format: "wav" } });
    expect(conf.fake.last().body).toMatchObject({ modalities: ["text", "audio"], audio: { voice: "alloy", format: "wav" } });
  });
});

describe("Responses (openai client)", () => {
  for (const adapter of ADAPTERS) {
    for (const stream of [false, true]) {
      test(`${adapter}${stream ? " streamed" : ""}: an image_generation_call item with the base64; audio is a warning`, async () => {
        conf.fake.enqueue(mediaReply(adapter, stream));
        const params = { model: MODEL[adapter], input: "Draw and say hello" };
        let result: Json;
        if (stream) {
          const events = await openai.responses.create({ ...params, stream: true });
          const done: Json[] = [];
          let completed: Json | undefined;
          for await (const event of events) {
            if (event.type === "response.output_item.done") done.push(event.item as Json);
            if (event.type === "response.completed") completed = event.response as Json;
          }
          expect(done.filter((item) => item.type === "image_generation_call").map((item) => item.result)).toEqual([PNG_BASE64]);
          result = completed!;
        } else result = (await openai.responses.create(params)) as unknown as Json;
        const images = (result.output as Json[]).filter((item) => item.type === "image_generation_call");
        expect(images).toEqual([{ id: expect.any(String), type: "image_generation_call", status: "completed", result: PNG_BASE64 }]);
        const audioWarnings = warningsOf(result.service_metadata).filter((m) => m.includes("Audio output"));
        expect(audioWarnings).toHaveLength(AUDIO[adapter] === undefined ? 0 : 1);
      });
    }
  }
});

describe("Messages (@anthropic-ai/sdk)", () => {
  const IMAGE_BLOCK = { type: "image", source: { type: "base64", media_type: "image/png", data: PNG_BASE64 } };

  for (const adapter of ADAPTERS) {
    test(`${adapter}: an image block after the text; audio is a warning`, async () => {
      conf.fake.enqueue(mediaReply(adapter, false));
      const message = (await anthropic.messages.create({ ...ask(adapter), max_tokens: 100 })) as unknown as Json;
      expect(message.content.map((block: Json) => block.type)).toEqual(["text", "image"]);
      expect(message.content[1]).toEqual(IMAGE_BLOCK);
      const audioWarnings = warningsOf(message.service_metadata).filter((m) => m.includes("Audio output"));
      expect(audioWarnings).toHaveLength(AUDIO[adapter] === undefined ? 0 : 1);
    });

    test(`${adapter}: the reply sent back as history continues the conversation; its image is dropped with a warning`, async () => {
      conf.fake.enqueue(mediaReply(adapter, false), mediaReply(adapter, false));
      const first = await anthropic.messages.create({ ...ask(adapter), max_tokens: 100 });
      const messages = [...ask(adapter).messages, { role: "assistant" as const, content: first.content }, { role: "user" as const, content: "Thanks" }];
      const second = (await anthropic.messages.create({ model: MODEL[adapter], messages: messages as never, max_tokens: 100 })) as unknown as Json;
      expect(second.type).toBe("message");
      expect(warningsOf(second.service_metadata)).toContain("A generated image in an assistant turn cannot be sent upstream and was dropped");
      const history = JSON.stringify(conf.fake.last().body);
      expect(history).toContain("The capital of France is Paris.");
      expect(history).not.toContain(PNG_BASE64);
    });

    test(`${adapter} streamed: the image block arrives whole and the SDK's final message holds it`, async () => {
      conf.fake.enqueue(mediaReply(adapter, true));
      const stream = anthropic.messages.stream({ ...ask(adapter), max_tokens: 100 });
      const starts: Json[] = [];
      for await (const event of stream) if (event.type === "content_block_start") starts.push(event.content_block as Json);
      expect(starts.find((block) => block.type === "image")).toEqual(IMAGE_BLOCK);
      const final = (await stream.finalMessage()) as unknown as Json;
      expect(final.content.find((block: Json) => block.type === "image")).toEqual(IMAGE_BLOCK);
      // Gemini streams the media between text chunks: the text around them is two blocks, in order.
      const text = final.content.filter((block: Json) => block.type === "text").map((block: Json) => block.text).join("");
      expect(text).toBe("The capital of France is Paris.");
    });
  }
});
