/** The simulator's PNG encoder and its prompt-derived pictures: valid files, exact sizes, deterministic bytes. */
import { describe, expect, test } from "bun:test";
import { adler32, crc32, encodePng } from "../../../../providers/simulator/png.ts";
import { drawPicture, pictureSize } from "../../../../providers/simulator/picture.ts";
import { decodePng } from "../../../support/png.ts";

describe("encodePng", () => {
  test("known checksums: CRC-32 of IEND and Adler-32 of 'Wikipedia'", () => {
    expect(crc32(new TextEncoder().encode("IEND"))).toBe(0xae426082);
    expect(adler32(new TextEncoder().encode("Wikipedia"))).toBe(0x11e60398);
  });

  test("a 3x2 RGB image decodes back to its exact pixels", () => {
    const pixels = Uint8Array.from({ length: 3 * 2 * 3 }, (_, i) => (i * 37) & 0xff);
    const png = decodePng(encodePng(3, 2, pixels, 3));
    expect(png).toMatchObject({ width: 3, height: 2, colorType: 2, chunkTypes: ["IHDR", "IDAT", "IEND"] });
    expect([...png.pixels]).toEqual([...pixels]);
  });

  test("RGBA keeps the alpha channel", () => {
    const pixels = Uint8Array.of(1, 2, 3, 0, 4, 5, 6, 255);
    const png = decodePng(encodePng(2, 1, pixels, 4));
    expect(png.colorType).toBe(6);
    expect([...png.pixels]).toEqual([...pixels]);
  });

  test("a pixel buffer of the wrong length is refused", () => {
    expect(() => encodePng(2, 2, new Uint8Array(11), 3)).toThrow(RangeError);
    expect(() => encodePng(0, 2, new Uint8Array(0), 3)).toThrow(RangeError);
  });
});

describe("drawPicture", () => {
  test("is a valid 64x64 PNG, the same bytes for the same prompt, others for another", () => {
    const a = drawPicture({ prompt: "a red fox in the snow" });
    expect(decodePng(a)).toMatchObject({ width: 64, height: 64, colorType: 2 });
    expect(Buffer.from(drawPicture({ prompt: "a red fox in the snow" })).equals(Buffer.from(a))).toBe(true);
    expect(Buffer.from(drawPicture({ prompt: "a blue whale" })).equals(Buffer.from(a))).toBe(false);
  });

  test("is 8x8 blocks of one colour each", () => {
    const { pixels } = decodePng(drawPicture({ prompt: "blocks" }));
    const at = (x: number, y: number) => [...pixels.subarray((y * 64 + x) * 3, (y * 64 + x) * 3 + 3)].join(",");
    expect(at(0, 0)).toBe(at(7, 7));
    expect(at(8, 0)).toBe(at(15, 7));
    const distinct = new Set(Array.from({ length: 64 }, (_, i) => at((i % 8) * 8, Math.floor(i / 8) * 8)));
    expect(distinct.size).toBeGreaterThan(32);
  });

  test("takes the shape of the size, else of the aspect ratio", () => {
    expect(pictureSize({ size: "1536x1024" })).toEqual({ width: 64, height: 43 });
    expect(pictureSize({ size: "1024x1536" })).toEqual({ width: 43, height: 64 });
    expect(pictureSize({ aspectRatio: "16:9" })).toEqual({ width: 64, height: 36 });
    expect(pictureSize({ size: "auto", aspectRatio: "9:16" })).toEqual({ width: 36, height: 64 });
    expect(pictureSize({})).toEqual({ width: 64, height: 64 });
    expect(decodePng(drawPicture({ prompt: "wide", aspectRatio: "21:9" }))).toMatchObject({ width: 64, height: 27 });
  });

  test("a transparent background is RGBA with a clear border and an opaque middle", () => {
    const png = decodePng(drawPicture({ prompt: "logo", background: "transparent" }));
    expect(png.colorType).toBe(6);
    const alpha = (x: number, y: number) => png.pixels[(y * png.width + x) * 4 + 3];
    expect(alpha(0, 0)).toBe(0);
    expect(alpha(63, 40)).toBe(0);
    expect(alpha(32, 32)).toBe(255);
  });
});
