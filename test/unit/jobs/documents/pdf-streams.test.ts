/** core/jobs/documents/pdf-streams.ts: the decoded size of a PDF's Flate streams, counted without keeping them. */
import { expect, test } from "bun:test";
import { deflateSync } from "node:zlib";
import { flateDecodedBytes } from "../../../../core/jobs/documents/pdf-streams.ts";
import { flateBombPdf } from "../../../support/hostile-documents.ts";

const encoder = new TextEncoder();
const GIB = 1024 ** 3;

/** A file holding one stream object with `dictionary` and `data` (no valid PDF around it: only streams are looked at). */
function withStream(dictionary: string, data: Uint8Array): Uint8Array {
  return Buffer.concat([encoder.encode(`%PDF-1.4\n4 0 obj\n${dictionary}\nstream\n`), data, encoder.encode("\nendstream\nendobj\n")]);
}

test("sums the decoded sizes of Flate streams", async () => {
  const data = deflateSync(Buffer.alloc(10_000, 65));
  const two = Buffer.concat([withStream("<< /Length 1 /Filter /FlateDecode >>", data), withStream("<< /Filter [/FlateDecode] /DecodeParms << /Columns 4 >> >>", data)]);
  expect(await flateDecodedBytes(two, GIB)).toBe(20_000);
});

test("stops as soon as the sum passes the limit, whatever the stream claims: a 1 GiB bomb costs a few MB", async () => {
  const decoded = await flateDecodedBytes(flateBombPdf({ zeros: 1 << 20 }, 1024), 4 * 1024 * 1024);
  expect(decoded).toBeGreaterThan(4 * 1024 * 1024);
  expect(decoded).toBeLessThan(GIB);
});

test("images and streams under another filter first are not counted (text extraction never decodes the former)", async () => {
  const data = deflateSync(Buffer.alloc(10_000));
  expect(await flateDecodedBytes(withStream("<< /Subtype /Image /Filter /FlateDecode >>", data), GIB)).toBe(0);
  expect(await flateDecodedBytes(withStream("<< /Filter [/ASCIIHexDecode /FlateDecode] >>", data), GIB)).toBe(0);
  expect(await flateDecodedBytes(withStream("<< /Length 3 >>", encoder.encode("abc")), GIB)).toBe(0);
});

test("a cut or corrupt stream counts what decodes before the fault, as pdf.js would decode it", async () => {
  const data = deflateSync(Buffer.alloc(1_000_000));
  const cut = await flateDecodedBytes(withStream("<< /Filter /FlateDecode >>", data.subarray(0, data.byteLength >> 1)), GIB);
  expect(cut).toBeGreaterThan(100_000);
  const corrupt = Buffer.from(data);
  corrupt[corrupt.byteLength - 20]! ^= 0xff;
  expect(await flateDecodedBytes(withStream("<< /Filter /FlateDecode >>", corrupt), GIB)).toBeGreaterThan(100_000);
});
