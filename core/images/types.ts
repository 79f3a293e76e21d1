/**
 * Image generation, adapter-neutral (issue `service:image_generation`):
 * what to draw, what an adapter's `images` call returns, and what a server tool gets back. One image per call.
 */
import type { ModuleHelpers } from "../registry/helpers.ts";
import type { UpstreamTarget } from "../registry/provider.ts";

/** Sizes the OpenAI Images API knows (`auto` lets the model choose). */
export const IMAGE_SIZES = ["auto", "1024x1024", "1536x1024", "1024x1536", "256x256", "512x512"] as const;
/** Aspect ratios the chat image-output dialect (`image_config.aspect_ratio`) knows. */
export const ASPECT_RATIOS = ["1:1", "2:3", "3:2", "3:4", "4:3", "4:5", "5:4", "9:16", "16:9", "21:9"] as const;
export const IMAGE_QUALITIES = ["auto", "low", "medium", "high"] as const;
export const IMAGE_BACKGROUNDS = ["auto", "transparent", "opaque"] as const;
export const IMAGE_FORMATS = ["png", "jpeg", "webp"] as const;
export const IMAGE_MODERATIONS = ["auto", "low"] as const;

/** What to draw and how; every field but the prompt is optional and left to the model when absent. */
export interface ImageRequest {
  prompt: string;
  size?: (typeof IMAGE_SIZES)[number];
  aspectRatio?: (typeof ASPECT_RATIOS)[number];
  quality?: (typeof IMAGE_QUALITIES)[number];
  background?: (typeof IMAGE_BACKGROUNDS)[number];
  outputFormat?: (typeof IMAGE_FORMATS)[number];
  /** 0–100, for jpeg and webp. */
  outputCompression?: number;
  moderation?: (typeof IMAGE_MODERATIONS)[number];
}

/** What a server tool asks for: an image request, and the model to make it with (default: an image model). */
export interface ImageGenerationRequest extends ImageRequest {
  model?: string;
}

/** One adapter `images` call: like a ProviderCall, with an image request in place of a chat one. */
export interface ImageCall {
  request: ImageRequest;
  target: UpstreamTarget;
  signal: AbortSignal;
  helpers: ModuleHelpers;
  /** Called once with the exact body sent upstream. */
  onUpstreamBody?: (body: unknown) => void;
}

/** One image an adapter made. */
export interface GeneratedImage {
  /** A `data:` URL (the image itself) or the provider's http(s) URL. */
  url: string;
  /** `image/png`, when known. */
  mediaType?: string;
  /** The prompt the model actually used, when it rewrote it. */
  revisedPrompt?: string;
}

/** What a server tool gets back from `generateImage`: the image and who made it. */
export interface ImageGeneration extends GeneratedImage {
  model: string;
  provider: string;
  /** USD charged for it (the model's per-image price). */
  cost: number;
}
