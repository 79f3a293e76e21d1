/**
 * OpenAI's `image_generation_call` output item (its hosted image tool, or image output): `result` is the finished
 * image's base64 in `output_format` (png by default). Partial images streamed before it are previews, not output.
 */
import type { ImagePart } from "../../core/sdk/index.ts";
import { imageMediaType } from "../../core/sdk/provider.ts";
import type { WireOutputItem } from "./wire.ts";

/** The image of a finished item, as a `data:` URL; undefined while it has no result (failed or still running). */
export function imageFromItem(item: WireOutputItem): ImagePart | undefined {
  if (typeof item.result !== "string" || item.result === "") return undefined;
  const mediaType = imageMediaType(typeof item.output_format === "string" ? item.output_format : undefined);
  return { type: "image", url: `data:${mediaType};base64,${item.result}`, mediaType };
}
