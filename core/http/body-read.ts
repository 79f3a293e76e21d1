/**
 * The one reader of request bodies (every body of this API is JSON), with its bounds:
 * - size: `server.body_limit_bytes`, at its exact byte (./body-limit.ts; a declared length over it never gets here);
 * - time: the whole body within `server.body_timeout_ms`, and, after the first `server.body_grace_ms`, on average at
 *   least `server.body_min_bytes_per_second` — else 408. Bun's idle timeout alone let a trickling body hold its
 *   connection for minutes, since every byte reset it;
 * - nesting: at most `server.max_json_depth` levels, counted on the raw bytes before anything parses them
 *   (./json-depth.ts) — else 400 at once, where parsing and validating 20,000 levels froze the process for seconds.
 */
import { GatewayError, isGatewayError } from "../errors.ts";
import { rememberBodyDigest } from "../idempotency/body-digest.ts";
import { payloadTooLarge } from "./body-limit.ts";
import { JsonDepthScanner, withinDepth } from "./json-depth.ts";

export interface BodyLimits {
  maxBytes: number;
  timeoutMs: number;
  graceMs: number;
  /** 0: no rate rule, only the total time. */
  minBytesPerSecond: number;
  maxDepth: number;
}

/**
 * Bodies up to this size with a declared length are read in one native call, much cheaper than reading the stream
 * (≈24 vs ≈40 µs for 10 KB in a loopback benchmark): they are most requests. Such a body must be complete by the
 * time its length allows at the minimum rate (grace + length ÷ rate); its progress is not watched meanwhile, so a
 * trickle is stopped at that point rather than as soon as it falls behind — at most 16 s later at the defaults.
 */
const ONE_READ_MAX_BYTES = 64 * 1024;

const utf8 = new TextDecoder();

/** The parsed JSON of the body; undefined when there is none (Elysia then answers as for a missing body). */
export async function readJsonBody(request: Request, limits: BodyLimits): Promise<unknown> {
  if (request.body === null) return undefined;
  const declared = request.headers.get("content-length");
  let bytes: Uint8Array;
  if (declared !== null && Number(declared) <= ONE_READ_MAX_BYTES) {
    bytes = await readAtOnce(request, Number(declared), limits);
    if (!withinDepth(bytes, limits.maxDepth)) throw tooDeep(limits.maxDepth);
  } else {
    bytes = await readStreamed(request.body, limits);
  }
  if (bytes.length === 0) return undefined;
  // Idempotent requests (core/idempotency/) compare raw bytes; a request without the key pays a header lookup.
  rememberBodyDigest(request, bytes);
  try {
    return JSON.parse(utf8.decode(bytes)) as unknown;
  } catch {
    throw new GatewayError("invalid_request", "Malformed JSON in request body");
  }
}

async function readAtOnce(request: Request, length: number, limits: BodyLimits): Promise<Uint8Array> {
  const allowed = Math.min(limits.timeoutMs, limits.minBytesPerSecond > 0 ? limits.graceMs + (length * 1000) / limits.minBytesPerSecond : limits.timeoutMs);
  const reading = request.bytes();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(tooSlow(limits, allowed >= limits.timeoutMs)), allowed);
  });
  try {
    return await Promise.race([reading, late]);
  } catch (error) {
    // Left behind on a time-out: it fails when the connection closes, and nobody waits for it any more.
    reading.catch(() => {});
    throw unreadable(error);
  } finally {
    clearTimeout(timer);
  }
}

async function readStreamed(body: ReadableStream<Uint8Array>, limits: BodyLimits): Promise<Uint8Array> {
  const reader = body.getReader();
  const scanner = new JsonDepthScanner(limits.maxDepth);
  const started = Date.now();
  const chunks: Uint8Array[] = [];
  let size = 0;
  // The verdict on time, also while no byte arrives at all (the timer below asks it then).
  const verdict = (): GatewayError | undefined => {
    const elapsed = Date.now() - started;
    if (elapsed > limits.timeoutMs) return tooSlow(limits, true);
    if (limits.minBytesPerSecond > 0 && elapsed > limits.graceMs && size < ((elapsed - limits.graceMs) * limits.minBytesPerSecond) / 1000) return tooSlow(limits, false);
    return undefined;
  };
  let stop: (error: GatewayError) => void = () => {};
  const stopped = new Promise<never>((_, reject) => (stop = reject));
  stopped.catch(() => {});
  const watch = setInterval(() => {
    const late = verdict();
    if (late) stop(late);
  }, Math.min(1000, Math.max(25, Math.min(limits.graceMs, limits.timeoutMs) / 4)));
  try {
    for (;;) {
      const { done, value } = await Promise.race([reader.read(), stopped]);
      if (done) break;
      size += value.byteLength;
      if (size > limits.maxBytes) throw payloadTooLarge(limits.maxBytes);
      if (!scanner.feed(value)) throw tooDeep(limits.maxDepth);
      const late = verdict();
      if (late) throw late;
      chunks.push(value);
    }
  } catch (error) {
    reader.cancel().catch(() => {});
    throw unreadable(error);
  } finally {
    clearInterval(watch);
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}

/** Our own refusals as they are; a read that failed (the client went away mid-body) is the client's 400, not a 500. */
function unreadable(error: unknown): unknown {
  return isGatewayError(error) ? error : new GatewayError("invalid_request", "The request body could not be read", { cause: error });
}

function tooDeep(maxDepth: number): GatewayError {
  return new GatewayError("invalid_request", `Request body nests deeper than ${maxDepth} levels`, { metadata: { max_depth: maxDepth } });
}

function tooSlow(limits: BodyLimits, total: boolean): GatewayError {
  const message = total
    ? `Request body not received within ${limits.timeoutMs} ms`
    : `Request body arrived slower than ${limits.minBytesPerSecond} bytes per second`;
  return new GatewayError("timeout", message, { status: 408, metadata: { reason: total ? "body_timeout" : "body_too_slow" } });
}
