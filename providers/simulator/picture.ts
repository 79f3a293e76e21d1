/**
 * The simulator's "image model": an 8×8 grid of coloured blocks whose colours come from a hash of the prompt, at
 * most 64 pixels on its long side in the requested shape. The same prompt and shape always give the same bytes, so
 * tests can compare images exactly; a transparent background leaves the outer ring of blocks clear.
 */
import type { ImageRequest } from "../../core/sdk/index.ts";
import { fnv1a } from "./hash.ts";
import { encodePng } from "./png.ts";

const LONG_SIDE = 64;
const GRID = 8;

/** Width and height: the shape of `size` (`1536x1024`), else of `aspectRatio` (`16:9`), else square. */
export function pictureSize(request: Pick<ImageRequest, "size" | "aspectRatio">): { width: number; height: number } {
  const shape = /^(\d+)x(\d+)$/.exec(request.size ?? "") ?? /^(\d+):(\d+)$/.exec(request.aspectRatio ?? "");
  const w = Number(shape?.[1] ?? 1);
  const h = Number(shape?.[2] ?? 1);
  if (!(w > 0 && h > 0)) return { width: LONG_SIDE, height: LONG_SIDE };
  return w >= h
    ? { width: LONG_SIDE, height: Math.max(1, Math.round((LONG_SIDE * h) / w)) }
    : { width: Math.max(1, Math.round((LONG_SIDE * w) / h)), height: LONG_SIDE };
}

/** xorshift32: a tiny deterministic generator seeded from the prompt's hash. */
function generator(seed: number): () => number {
  let state = seed >>> 0 || 0x9e3779b9;
  return () => {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    return (state >>>= 0);
  };
}

/** The PNG for `request`: deterministic in the prompt, the shape and the background. */
export function drawPicture(request: ImageRequest): Uint8Array {
  const { width, height } = pictureSize(request);
  const transparent = request.background === "transparent";
  const channels = transparent ? 4 : 3;
  const next = generator(fnv1a(request.prompt));
  const colours = Array.from({ length: GRID * GRID }, () => next());
  const pixels = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    const row = Math.min(GRID - 1, Math.floor((y * GRID) / height));
    for (let x = 0; x < width; x++) {
      const column = Math.min(GRID - 1, Math.floor((x * GRID) / width));
      const colour = colours[row * GRID + column]!;
      const at = (y * width + x) * channels;
      pixels[at] = colour >>> 24;
      pixels[at + 1] = (colour >>> 16) & 0xff;
      pixels[at + 2] = (colour >>> 8) & 0xff;
      if (transparent) pixels[at + 3] = row === 0 || column === 0 || row === GRID - 1 || column === GRID - 1 ? 0 : 255;
    }
  }
  return encodePng(width, height, pixels, channels);
}
