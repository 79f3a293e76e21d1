/** Canonical part builders the OpenAI-style decoders (chat `messages`, Responses `input`) share. */
import type { CacheMark, FilePart, ImagePart } from "../../model/parts.ts";

/** `data:<type>;…` → `<type>`, so adapters need not re-parse data URLs; undefined for other URLs. */
export function mediaTypeOf(url: string): string | undefined {
  return /^data:([^;,]+)[;,]/.exec(url)?.[1];
}

/** An image by URL (http(s) or data:), with the media type of a data: URL. */
export function urlImagePart(url: string, detail: ImagePart["detail"] | undefined, cache: CacheMark | undefined): ImagePart {
  const image: ImagePart = { type: "image", url };
  const mediaType = mediaTypeOf(url);
  if (mediaType) image.mediaType = mediaType;
  if (detail) image.detail = detail;
  if (cache) image.cache = cache;
  return image;
}

/** A file by data: URL, http(s) URL or provider file id, with the media type of a data: URL. */
export function dataFilePart(data: string, filename: string | undefined, cache: CacheMark | undefined): FilePart {
  const file: FilePart = { type: "file", data };
  const mediaType = mediaTypeOf(data);
  if (mediaType) file.mediaType = mediaType;
  if (filename !== undefined) file.filename = filename;
  if (cache) file.cache = cache;
  return file;
}
