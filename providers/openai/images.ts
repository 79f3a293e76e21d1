/**
 * `images` of the `openai` adapter (`service:image_generation`): OpenAI's Images API, `POST {base_url}/images/generations`
 * with `{model, prompt, n: 1, size, quality, background, output_format, output_compression, moderation}` →
 * `data[].b64_json | url` and `revised_prompt`. With the option `image_api: "chat"` the image is asked of chat
 * completions instead (`modalities: ["image", "text"]`, answered in `message.images`), for OpenAI-compatible
 * servers that make images only that way.
 */
import type { CanonicalResponse, GeneratedImage, ImageCall, ImageRequest, ProviderCall, UpstreamTarget } from "../../core/sdk/index.ts";
import { bearerHeaders, imageMediaType, imagesViaChat, postJson, readJsonObject } from "../../core/sdk/provider.ts";
import { readOpenAIOptions } from "./options.ts";
import type { ImagesRequestBody, ImagesResponseBody } from "./wire.ts";

/** `${baseUrl}/images/generations`, tolerating a trailing slash. */
export function imagesUrl(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, "")}/images/generations`;
}

/**
 * The Images API has sizes, not aspect ratios: without a size, a ratio picks the size of its orientation
 * (landscape 1536x1024, portrait 1024x1536, square 1024x1024).
 */
export function sizeOf(request: Pick<ImageRequest, "size" | "aspectRatio">): string | undefined {
  if (request.size !== undefined || request.aspectRatio === undefined) return request.size;
  const [w, h] = request.aspectRatio.split(":").map(Number) as [number, number];
  return w / h > 1.1 ? "1536x1024" : w / h < 0.9 ? "1024x1536" : "1024x1024";
}

/** The exact body sent; parameters the request leaves out are left to the model's defaults. */
export function toImagesBody(request: ImageRequest, target: UpstreamTarget): ImagesRequestBody {
  const body: ImagesRequestBody = { model: target.upstreamModel, prompt: request.prompt, n: 1 };
  const size = sizeOf(request);
  if (size !== undefined) body.size = size;
  if (request.quality !== undefined) body.quality = request.quality;
  if (request.background !== undefined) body.background = request.background;
  if (request.outputFormat !== undefined) body.output_format = request.outputFormat;
  if (request.outputCompression !== undefined) body.output_compression = request.outputCompression;
  if (request.moderation !== undefined) body.moderation = request.moderation;
  return body;
}

/** The images of a reply: base64 as `data:` URLs of the output format's type, URLs as they are. */
export function fromImagesResponse(reply: ImagesResponseBody, request: ImageRequest): GeneratedImage[] {
  const mediaType = imageMediaType(reply.output_format ?? request.outputFormat);
  const images: GeneratedImage[] = [];
  for (const entry of reply.data ?? []) {
    const url = typeof entry.b64_json === "string" && entry.b64_json !== "" ? `data:${mediaType};base64,${entry.b64_json}` : entry.url;
    if (typeof url !== "string" || url === "") continue;
    const image: GeneratedImage = url.startsWith("data:") ? { url, mediaType } : { url };
    if (typeof entry.revised_prompt === "string" && entry.revised_prompt !== "") image.revisedPrompt = entry.revised_prompt;
    images.push(image);
  }
  return images;
}

/** The adapter's `images`; `generate` is its chat call (for `image_api: "chat"`). */
export async function openAIImages(call: ImageCall, generate: (call: ProviderCall) => Promise<CanonicalResponse>): Promise<GeneratedImage[]> {
  if (readOpenAIOptions(call.target.options).image_api === "chat") return imagesViaChat(generate, call);
  const body = toImagesBody(call.request, call.target);
  call.onUpstreamBody?.(body);
  const response = await postJson(call, imagesUrl(call.target.baseUrl), body, bearerHeaders(call));
  return fromImagesResponse(await readJsonObject<ImagesResponseBody>(call, response), call.request);
}
