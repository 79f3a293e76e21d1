/**
 * Small hostile documents made in the test (no fixtures on disk): PDFs whose Flate stream inflates to far more than
 * its size, a PDF of thousands of pages, and HTML of extreme shapes. Each is cheap to make: a bomb's compressed bytes
 * are one deflated piece repeated, never the inflated data itself.
 */
import { constants, deflateRawSync } from "node:zlib";

const encoder = new TextEncoder();

/** A PDF made of `objects` (object n is `objects[n - 1]`, the catalog first) with a valid cross-reference table. */
function assemble(objects: Array<string | Uint8Array[]>): Uint8Array {
  const parts: Uint8Array[] = [encoder.encode("%PDF-1.4\n")];
  let length = parts[0]!.byteLength;
  const offsets: number[] = [];
  const push = (part: Uint8Array) => {
    parts.push(part);
    length += part.byteLength;
  };
  objects.forEach((body, index) => {
    offsets.push(length);
    push(encoder.encode(`${index + 1} 0 obj\n`));
    for (const piece of typeof body === "string" ? [encoder.encode(body)] : body) push(piece);
    push(encoder.encode("\nendobj\n"));
  });
  const xref = length;
  let tail = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) tail += `${String(offset).padStart(10, "0")} 00000 n \n`;
  tail += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  push(encoder.encode(tail));
  return new Uint8Array(Buffer.concat(parts));
}

const FONT = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>";

/**
 * A one-page PDF whose content stream is `piece` repeated `times` times, Flate-compressed: each repetition deflated
 * once (a sync flush ends it on a byte boundary), the compressed piece repeated, then a final empty block and the
 * zlib checksum of the whole. `zeros` of 1 GiB is about 1 MB of PDF; text operators give a stream pdf.js must parse.
 */
export function flateBombPdf(piece: string | { zeros: number }, times: number): Uint8Array {
  const data = typeof piece === "string" ? encoder.encode(piece) : new Uint8Array(piece.zeros);
  const compressed = deflateRawSync(data, { finishFlush: constants.Z_SYNC_FLUSH, level: 9 });
  const finalBlock = Uint8Array.of(0x03, 0x00);
  let checksum = adler32(data);
  const one = checksum;
  for (let i = 1; i < times; i++) checksum = adler32Combine(checksum, one, data.byteLength);
  const trailer = Uint8Array.of(checksum >>> 24, (checksum >>> 16) & 0xff, (checksum >>> 8) & 0xff, checksum & 0xff);
  const stream = [Uint8Array.of(0x78, 0xda), ...Array.from({ length: times }, () => compressed), finalBlock, trailer];
  const length = stream.reduce((sum, part) => sum + part.byteLength, 0);
  return assemble([
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    [encoder.encode(`<< /Length ${length} /Filter /FlateDecode >>\nstream\n`), ...stream, encoder.encode("\nendstream")],
    FONT,
  ]);
}

/** A PDF of `pages` pages, each showing one short line (they share one content stream: about 60 bytes a page). */
export function manyPagesPdf(pages: number): Uint8Array {
  const content = "BT /F1 12 Tf 72 720 Td (A page of many) Tj ET";
  const kids = Array.from({ length: pages }, (_, i) => `${i + 6} 0 R`).join(" ");
  const objects: string[] = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    `<< /Type /Pages /Kids [${kids}] /Count ${pages} >>`,
    `<< /Length ${content.length} >>\nstream\n${content}\nendstream`,
    FONT,
    "<< /Font << /F1 4 0 R >> >>",
  ];
  for (let i = 0; i < pages; i++) objects.push("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 3 0 R /Resources 5 0 R >>");
  return assemble(objects);
}

export const nestedDivs = (depth: number): string => `<!doctype html><html><body>${"<div>".repeat(depth)}deep${"</div>".repeat(depth)}</body></html>`;

export const paragraphs = (count: number): string =>
  `<!doctype html><html><head><title>Many</title></head><body><article>${"<p>Words.</p>".repeat(count)}</article></body></html>`;

export const table = (rows: number, columns: number): string =>
  `<!doctype html><html><body><table>${`<tr>${"<td>x</td>".repeat(columns)}</tr>`.repeat(rows)}</table></body></html>`;

const ADLER_BASE = 65521;

function adler32(data: Uint8Array): number {
  let a = 1;
  let b = 0;
  for (const byte of data) {
    a = (a + byte) % ADLER_BASE;
    b = (b + a) % ADLER_BASE;
  }
  return ((b << 16) | a) >>> 0;
}

/** zlib's adler32_combine: the checksum of A then B from theirs and B's length. */
function adler32Combine(first: number, second: number, secondLength: number): number {
  const rem = secondLength % ADLER_BASE;
  let sum1 = first & 0xffff;
  let sum2 = (rem * sum1) % ADLER_BASE;
  sum1 += (second & 0xffff) + ADLER_BASE - 1;
  sum2 += ((first >>> 16) & 0xffff) + ((second >>> 16) & 0xffff) + ADLER_BASE - rem;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum1 >= ADLER_BASE) sum1 -= ADLER_BASE;
  if (sum2 >= ADLER_BASE * 2) sum2 -= ADLER_BASE * 2;
  if (sum2 >= ADLER_BASE) sum2 -= ADLER_BASE;
  return ((sum2 << 16) | sum1) >>> 0;
}
