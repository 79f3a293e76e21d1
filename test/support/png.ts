/**
 * A strict little PNG reader for tests: checks the signature, every chunk's CRC (computed here independently of the
 * encoder under test), the IHDR fields, and inflates IDAT with node:zlib (which verifies the zlib header and
 * Adler-32). Only what the simulator writes is supported: 8-bit RGB/RGBA, no interlace, filter 0 rows.
 */
import { inflateSync } from "node:zlib";

export interface DecodedPng {
  width: number;
  height: number;
  /** 2 = RGB, 6 = RGBA. */
  colorType: number;
  channels: number;
  /** Row-major pixel bytes without the filter bytes. */
  pixels: Uint8Array;
  chunkTypes: string[];
}

function crc(bytes: Uint8Array): number {
  let c = 0xffffffff;
  for (const byte of bytes) {
    c ^= byte;
    for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0xedb88320 : c >>> 1;
  }
  return (c ^ 0xffffffff) >>> 0;
}

export function decodePng(bytes: Uint8Array): DecodedPng {
  const signature = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
  if (!signature.every((b, i) => bytes[i] === b)) throw new Error("not a PNG signature");
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const chunkTypes: string[] = [];
  const idat: Uint8Array[] = [];
  let header: Uint8Array | undefined;
  for (let at = 8; at < bytes.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const data = bytes.subarray(at + 8, at + 8 + length);
    const expected = view.getUint32(at + 8 + length);
    if (crc(bytes.subarray(at + 4, at + 8 + length)) !== expected) throw new Error(`bad CRC in ${type}`);
    chunkTypes.push(type);
    if (type === "IHDR") header = data;
    if (type === "IDAT") idat.push(data);
    at += 12 + length;
  }
  if (!header || chunkTypes[0] !== "IHDR" || chunkTypes.at(-1) !== "IEND") throw new Error("bad chunk order");
  const h = new DataView(header.buffer, header.byteOffset, header.byteLength);
  const width = h.getUint32(0);
  const height = h.getUint32(4);
  const [depth, colorType, compression, filter, interlace] = [header[8], header[9]!, header[10], header[11], header[12]];
  if (depth !== 8 || compression !== 0 || filter !== 0 || interlace !== 0 || (colorType !== 2 && colorType !== 6)) throw new Error("unsupported IHDR");
  const channels = colorType === 6 ? 4 : 3;
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length !== height * (stride + 1)) throw new Error(`inflated ${raw.length} bytes, expected ${height * (stride + 1)}`);
  const pixels = new Uint8Array(width * height * channels);
  for (let y = 0; y < height; y++) {
    if (raw[y * (stride + 1)] !== 0) throw new Error(`row ${y} uses filter ${raw[y * (stride + 1)]}`);
    pixels.set(raw.subarray(y * (stride + 1) + 1, (y + 1) * (stride + 1)), y * stride);
  }
  return { width, height, colorType, channels, pixels, chunkTypes };
}

/** The bytes of a base64 `data:image/png` URL (throws for anything else). */
export function pngOfDataUrl(url: string): Uint8Array {
  const prefix = "data:image/png;base64,";
  if (!url.startsWith(prefix)) throw new Error(`not a PNG data URL: ${url.slice(0, 40)}`);
  return new Uint8Array(Buffer.from(url.slice(prefix.length), "base64"));
}
