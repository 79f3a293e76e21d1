/**
 * A generated image (image output) as a Messages `image` block — the shape Anthropic uses for images in content, so
 * the SDK's types read it: base64 for a `data:` URL, a `url` source for an image the upstream gave only as a link.
 * Shared by the result encoder and the stream encoder (which sends the block whole in `content_block_start`).
 */
import { parseDataUrl } from "../../images/data-url.ts";

export function imageBlockOf(image: { url: string; mediaType?: string }): Record<string, unknown> {
  const data = parseDataUrl(image.url);
  if (data === undefined) return { type: "image", source: { type: "url", url: image.url } };
  return { type: "image", source: { type: "base64", media_type: image.mediaType ?? data.mediaType, data: data.base64 } };
}
