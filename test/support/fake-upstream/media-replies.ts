/**
 * Upstream replies that carry generated media, in each wire's real shape, built on the `text` fixtures (so usage,
 * ids and framing stay those of real captures): OpenAI chat `message.images` / `message.audio` (streamed as
 * `delta.images` and `delta.audio` pieces), OpenAI Responses `image_generation_call` items, Gemini `inlineData`
 * image and audio parts. Anthropic has no image or audio output.
 */
import { drawPicture } from "../../../providers/simulator/picture.ts";
import { fixture, WIRE } from "./fixtures.ts";
import type { Reply } from "./server.ts";
import type { SseFrame } from "./sse.ts";

type Json = Record<string, any>;

/** A real PNG (the simulator's picture of "media"), base64. */
export const PNG_BASE64 = Buffer.from(drawPicture({ prompt: "media" })).toString("base64");
export const PNG_URL = `data:image/png;base64,${PNG_BASE64}`;
/** Audio bytes in three pieces; the first piece's base64 is padded, as a streamed piece may be. */
export const AUDIO_PIECES = [Buffer.from([1, 2, 3, 4]), Buffer.from([5, 6, 7, 8, 9, 10]), Buffer.from([11, 12, 13])];
export const AUDIO_BASE64 = Buffer.concat(AUDIO_PIECES).toString("base64");
export const TRANSCRIPT = "Hello there.";
export const AUDIO_ID = "audio_6870f1c2d3e48190a1b2c3d4e5f60718";
export const AUDIO_EXPIRES = 1754046000;

/** The text fixture's JSON reply with media added to choice 0's message. */
function openaiJson(): Json {
  const body = fixture("openai", "text").json as Json;
  const message = body.choices[0].message as Json;
  message.images = [{ type: "image_url", image_url: { url: PNG_URL } }];
  message.audio = { id: AUDIO_ID, data: AUDIO_BASE64, transcript: TRANSCRIPT, expires_at: AUDIO_EXPIRES };
  return body;
}

/** The text stream with an image delta and the audio in pieces (id, data, transcript fragments, expiry) before finish. */
function openaiFrames(): SseFrame[] {
  const frames = fixture("openai", "text").sse;
  const finishAt = frames.findIndex((f) => (f.data as Json)?.choices?.[0]?.finish_reason);
  const template = frames[finishAt - 1]!.data as Json;
  const chunk = (delta: Json): SseFrame => ({ data: { ...template, choices: [{ index: 0, delta, logprobs: null, finish_reason: null }] } });
  const media = [
    chunk({ images: [{ type: "image_url", image_url: { url: PNG_URL }, index: 0 }] }),
    chunk({ audio: { id: AUDIO_ID, transcript: "Hello " } }),
    ...AUDIO_PIECES.map((piece, i) => chunk({ audio: i === 1 ? { data: piece.toString("base64"), transcript: "there." } : { data: piece.toString("base64") } })),
    chunk({ audio: { expires_at: AUDIO_EXPIRES } }),
  ];
  return [...frames.slice(0, finishAt), ...media, ...frames.slice(finishAt)];
}

const IMAGE_ITEM = { id: "ig_68a1b2c3d4e5f60718293a4b5c6d7e8f", type: "image_generation_call", status: "completed", output_format: "png", revised_prompt: "A small picture", result: PNG_BASE64 };

function responsesJson(): Json {
  const body = fixture("openai-responses", "text").json as Json;
  body.output.push(IMAGE_ITEM);
  return body;
}

/** The text stream with the image item announced (no result), a partial preview, then done with its result. */
function responsesFrames(): SseFrame[] {
  const frames = fixture("openai-responses", "text").sse;
  const completedAt = frames.findIndex((f) => (f.data as Json).type === "response.completed");
  const { result: _, ...announced } = IMAGE_ITEM;
  const media: SseFrame[] = [
    { data: { type: "response.output_item.added", output_index: 1, item: { ...announced, status: "in_progress" } } },
    { data: { type: "response.image_generation_call.partial_image", output_index: 1, item_id: IMAGE_ITEM.id, partial_image_index: 0, partial_image_b64: "cGFydGlhbA==" } },
    { data: { type: "response.output_item.done", output_index: 1, item: IMAGE_ITEM } },
  ];
  const completed = structuredClone(frames[completedAt]!) as { data: Json };
  completed.data.response.output.push(IMAGE_ITEM);
  return [...frames.slice(0, completedAt), ...media, completed, ...frames.slice(completedAt + 1)];
}

const GEMINI_MEDIA = [
  { inlineData: { mimeType: "image/png", data: PNG_BASE64 } },
  { inlineData: { mimeType: "audio/L16;codec=pcm;rate=24000", data: AUDIO_BASE64 } },
];

function geminiJson(): Json {
  const body = fixture("gemini", "text").json as Json;
  body.candidates[0].content.parts.push(...GEMINI_MEDIA);
  return body;
}

/** Each medium in its own chunk before the last, as Gemini streams whole inline parts. */
function geminiFrames(): SseFrame[] {
  const frames = fixture("gemini", "text").sse;
  const last = frames.length - 1;
  const template = frames[0]!.data as Json;
  const media = GEMINI_MEDIA.map((part) => ({ data: { ...template, candidates: [{ index: 0, content: { parts: [part], role: "model" } }] } }));
  return [...frames.slice(0, last), ...media, frames[last]!];
}

export type MediaAdapter = "openai" | "openai-responses" | "gemini";

/** The reply with media for `adapter`, streamed or not. */
export function mediaReply(adapter: MediaAdapter, stream: boolean): Reply {
  const expectPath = WIRE[adapter].path(stream);
  const style = WIRE[adapter].style;
  switch (adapter) {
    case "openai":
      return stream ? { kind: "sse", frames: openaiFrames(), style, expectPath } : { kind: "json", body: openaiJson(), expectPath };
    case "openai-responses":
      return stream ? { kind: "sse", frames: responsesFrames(), style, expectPath } : { kind: "json", body: responsesJson(), expectPath };
    case "gemini":
      return stream ? { kind: "sse", frames: geminiFrames(), style, expectPath } : { kind: "json", body: geminiJson(), expectPath };
  }
}
