/**
 * A minimal PNG encoder (8-bit RGB or RGBA, no interlace, filter 0 on every row): enough for the simulator's
 * deterministic pictures without an image library. The IDAT stream is zlib (RFC 1950): Bun's raw DEFLATE wrapped
 * in the two-byte zlib header and the Adler-32 trailer, which PNG decoders verify.
 */

const SIGNATURE = Uint8Array.of(0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a);

/** CRC-32 (IEEE, as PNG chunks use it) lookup table, built once. */
const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

/** CRC-32 of `bytes` (a PNG chunk's CRC covers its type and data). */
export function crc32(bytes: Uint8Array): number {
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = CRC_TABLE[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** Adler-32, the zlib stream's checksum of the uncompressed data. */
export function adler32(bytes: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (let i = 0; i < bytes.length; i++) {
    a = (a + bytes[i]!) % 65521;
    b = (b + a) % 65521;
  }
  return ((b << 16) | a) >>> 0;
}

/** `data` as a zlib stream: header 78 9C (deflate, 32 KiB window, default level), raw DEFLATE, Adler-32 big-endian. */
export function zlibWrap(data: Uint8Array<ArrayBuffer>): Uint8Array {
  const deflated = Bun.deflateSync(data);
  const out = new Uint8Array(2 + deflated.length + 4);
  out[0] = 0x78;
  out[1] = 0x9c;
  out.set(deflated, 2);
  new DataView(out.buffer).setUint32(2 + deflated.length, adler32(data));
  return out;
}

function chunk(type: string, data: Uint8Array): Uint8Array {
  const out = new Uint8Array(12 + data.length);
  const view = new DataView(out.buffer);
  view.setUint32(0, data.length);
  for (let i = 0; i < 4; i++) out[4 + i] = type.charCodeAt(i);
  out.set(data, 8);
  view.setUint32(8 + data.length, crc32(out.subarray(4, 8 + data.length)));
  return out;
}

/** Encodes `pixels` (row-major, `channels` bytes per pixel: 3 = RGB, 4 = RGBA) as a PNG file. */
export function encodePng(width: number, height: number, pixels: Uint8Array, channels: 3 | 4): Uint8Array {
  if (!Number.isInteger(width) || !Number.isInteger(height) || width < 1 || height < 1) throw new RangeError(`bad PNG size ${width}x${height}`);
  if (pixels.length !== width * height * channels) throw new RangeError(`expected ${width * height * channels} pixel bytes, got ${pixels.length}`);
  const header = new Uint8Array(13);
  const view = new DataView(header.buffer);
  view.setUint32(0, width);
  view.setUint32(4, height);
  header[8] = 8; // bit depth
  header[9] = channels === 4 ? 6 : 2; // colour type: truecolour with alpha / truecolour
  // Bytes 10–12 (compression, filter method, interlace) are all 0.
  const stride = width * channels;
  const raw = new Uint8Array(height * (stride + 1));
  for (let y = 0; y < height; y++) raw.set(pixels.subarray(y * stride, (y + 1) * stride), y * (stride + 1) + 1); // filter byte 0: None
  const parts = [SIGNATURE, chunk("IHDR", header), chunk("IDAT", zlibWrap(raw)), chunk("IEND", new Uint8Array(0))];
  const out = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}
