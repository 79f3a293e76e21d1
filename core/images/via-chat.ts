/**
 * Image generation through a chat turn, for upstreams that make images only as chat output (OpenRouter-style
 * `modalities: ["image", "text"]` with `image_config`, answered in `message.images`) and for adapters without an
 * images API: one user message with the prompt, the images of the reply taken as the result. Parameters the chat
 * dialect has no field for (quality, background, output format, compression, moderation) are not sent.
 */
import { addWarning } from "../model/warnings.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { CanonicalResponse } from "../model/response.ts";
import type { ProviderCall } from "../registry/provider.ts";
import { parseDataUrl } from "./data-url.ts";
import type { GeneratedImage, ImageCall, ImageRequest } from "./types.ts";

/** `image_config` for the request: its aspect ratio, else the shape of its size (`1536x1024` → `3:2`). */
export function imageConfigOf(request: Pick<ImageRequest, "size" | "aspectRatio">): Record<string, string> | undefined {
  if (request.aspectRatio !== undefined) return { aspect_ratio: request.aspectRatio };
  const size = /^(\d+)x(\d+)$/.exec(request.size ?? "");
  if (!size) return undefined;
  const [w, h] = [Number(size[1]), Number(size[2])];
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const d = gcd(w, h);
  return { aspect_ratio: `${w / d}:${h / d}` };
}

/** The chat request that asks the model for the image. */
export function chatImageRequest(request: ImageRequest): CanonicalRequest {
  const config = imageConfigOf(request);
  const chat: CanonicalRequest = {
    // `chat`: the openai adapter forwards chat-format extras such as `image_config` as they are.
    format: "chat",
    model: undefined,
    models: [],
    system: [],
    messages: [{ role: "user", parts: [{ type: "text", text: request.prompt }] }],
    tools: [],
    sampling: {},
    stream: false,
    plugins: [],
    modalities: ["image", "text"],
    warnings: [],
    original: {},
  };
  if (config !== undefined) chat.passthrough = { image_config: config };
  return chat;
}

/** Makes the image with `generate`; a reply without an image is a 502 (another endpoint may do better). */
export async function imagesViaChat(generate: (call: ProviderCall) => Promise<CanonicalResponse>, call: ImageCall): Promise<GeneratedImage[]> {
  const request = chatImageRequest(call.request);
  // The image tool's result has no warnings to show: what the chat translation reports stays with its request.
  const providerCall: ProviderCall = { request, target: call.target, signal: call.signal, helpers: call.helpers, warn: (warning) => addWarning(request.warnings, warning) };
  if (call.onUpstreamBody) providerCall.onUpstreamBody = call.onUpstreamBody;
  const response = await generate(providerCall);
  const images: GeneratedImage[] = [];
  for (const part of response.parts) {
    if (part.type !== "image") continue;
    const mediaType = part.mediaType ?? parseDataUrl(part.url)?.mediaType;
    images.push(mediaType === undefined ? { url: part.url } : { url: part.url, mediaType });
  }
  if (images.length === 0) {
    throw call.helpers.error("provider_unavailable", "The model answered without an image", { status: 502, retryable: true, metadata: { provider_code: "no_image" } });
  }
  return images;
}
