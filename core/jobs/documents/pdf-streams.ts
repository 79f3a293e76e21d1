/**
 * How many bytes a PDF's Flate streams decode to, counted before pdf.js reads the file: pdf.js inflates a stream whole
 * into memory, so a 1 MB stream of zeros becomes a gigabyte (and a 390 KB one 256 MB, decoded for 27 s). Counting
 * inflates in pieces and keeps nothing, and stops as soon as the sum passes the cap.
 *
 * Counted: every stream whose first filter is FlateDecode (content streams, fonts, object and cross-reference
 * streams), whatever its dictionary's `/Length` claims. Not counted: images (text extraction never decodes them) and
 * streams under another filter first; a hostile one of those meets the pool's memory bound instead.
 */
import { constants, createInflate, inflateSync } from "node:zlib";

/** A stream's dictionary is looked for this far before its `stream` keyword. */
const DICTIONARY_WINDOW = 4096;

/** The sum of the decoded sizes, or a number above `limit` as soon as it is passed. */
export async function flateDecodedBytes(bytes: Uint8Array, limit: number): Promise<number> {
  // Latin-1: one character per byte, so offsets in the text are offsets in the file.
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("latin1");
  let total = 0;
  let at = 0;
  while ((at = text.indexOf("stream", at)) >= 0) {
    const keyword = at;
    at += "stream".length;
    if (text.startsWith("end", keyword - 3)) continue;
    const dictionary = dictionaryBefore(text, keyword);
    const start = dataStart(text, at);
    if (dictionary === undefined || start === undefined) continue;
    const end = text.indexOf("endstream", start);
    const stop = end < 0 ? text.length : end;
    at = stop;
    if (!isCountedFlate(dictionary)) continue;
    total += await inflatedSize(bytes.subarray(start, stop), limit - total);
    if (total > limit) return total;
  }
  return total;
}

/** The dictionary a `stream` keyword follows (`<< … >>` then white space), from its object's start. */
function dictionaryBefore(text: string, keyword: number): string | undefined {
  const before = text.slice(Math.max(0, keyword - DICTIONARY_WINDOW), keyword);
  if (!/>>\s*$/.test(before)) return undefined;
  const object = before.lastIndexOf(" obj");
  return object >= 0 ? before.slice(object) : before;
}

/** Where the data starts: after the end of line that must follow `stream` (CRLF or LF; a lone CR is tolerated). */
function dataStart(text: string, afterKeyword: number): number | undefined {
  if (text.startsWith("\r\n", afterKeyword)) return afterKeyword + 2;
  if (text[afterKeyword] === "\n" || text[afterKeyword] === "\r") return afterKeyword + 1;
  return undefined;
}

function isCountedFlate(dictionary: string): boolean {
  if (/\/Subtype\s*\/Image\b/.test(dictionary)) return false;
  const first = /\/Filter\s*(?:\[\s*)?\/([A-Za-z0-9]+)/.exec(dictionary)?.[1];
  return first === "FlateDecode" || first === "Fl";
}

/** Decoded size of one zlib stream, at most `budget + 1` (past the budget, the exact size does not matter). */
async function inflatedSize(data: Uint8Array, budget: number): Promise<number> {
  try {
    // Cut or trailing-junk streams decode as far as they go (pdf.js reads them the same way).
    return inflateSync(data, { finishFlush: constants.Z_SYNC_FLUSH, maxOutputLength: budget + 1 }).byteLength;
  } catch (error) {
    if ((error as { code?: string }).code === "ERR_BUFFER_TOO_LARGE") return budget + 1;
    // Corrupt part-way: what decodes before the fault still counts, so a run of nearly-full broken streams adds up.
    return countInPieces(data, budget);
  }
}

function countInPieces(data: Uint8Array, budget: number): Promise<number> {
  return new Promise((resolve) => {
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    let size = 0;
    inflate.on("data", (chunk: Buffer) => {
      size += chunk.byteLength;
      if (size > budget) {
        inflate.destroy();
        resolve(size);
      }
    });
    inflate.on("end", () => resolve(size));
    inflate.on("error", () => resolve(size));
    inflate.end(data);
  });
}
