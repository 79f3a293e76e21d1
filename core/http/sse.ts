/**
 * Server-sent events, built in one place: frames are relayed as they arrive (pull-based, so a slow client
 * applies back-pressure upstream), idle streams get keep-alive comments from ONE shared ticker (no timer per
 * stream or per chunk), and a client that goes away cancels the source (which aborts the upstream request).
 */
const encoder = new TextEncoder();

/** SSE comment: clients skip lines starting with ':' (reference b10). */
export const KEEP_ALIVE_COMMENT = ": SERVICE PROCESSING\n\n";

interface LiveStream {
  controller: ReadableStreamDefaultController<Uint8Array>;
  lastWrite: number;
  keepAlive: Uint8Array;
  keepAliveMs: number;
}

const live = new Set<LiveStream>();
/** Keep-alive frames encoded once per distinct frame text, shared by every stream (not one buffer per stream). */
const keepAliveBytes = new Map<string, Uint8Array>();

function keepAliveOf(frame: string): Uint8Array {
  let bytes = keepAliveBytes.get(frame);
  if (!bytes) keepAliveBytes.set(frame, (bytes = encoder.encode(frame)));
  return bytes;
}
let ticker: ReturnType<typeof setInterval> | undefined;
let tickerPeriod = 0;

function ensureTicker(keepAliveMs: number): void {
  if (ticker && tickerPeriod <= keepAliveMs) return;
  if (ticker) clearInterval(ticker);
  tickerPeriod = Math.max(50, Math.floor(keepAliveMs / 2));
  ticker = setInterval(() => {
    const now = performance.now();
    for (const stream of live) {
      if (now - stream.lastWrite < stream.keepAliveMs) continue;
      try {
        stream.controller.enqueue(stream.keepAlive);
        stream.lastWrite = now;
      } catch {
        live.delete(stream);
      }
    }
  }, tickerPeriod);
  ticker.unref?.();
}

/** Number of SSE streams currently open (for graceful shutdown). */
export function openStreamCount(): number {
  return live.size;
}

export interface SseOptions {
  keepAliveMs: number;
  keepAliveFrame?: string;
  headers?: Record<string, string>;
  /** Runs once when the stream ends for any reason (done, error, client gone). */
  onClose?: () => void;
}

export function sseResponse(frames: AsyncIterable<string>, options: SseOptions): Response {
  const iterator = frames[Symbol.asyncIterator]();
  let entry: LiveStream | undefined;
  let closed = false;
  const close = () => {
    if (closed) return;
    closed = true;
    if (entry) live.delete(entry);
    options.onClose?.();
  };
  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        entry = {
          controller,
          lastWrite: performance.now(),
          keepAlive: keepAliveOf(options.keepAliveFrame ?? KEEP_ALIVE_COMMENT),
          keepAliveMs: options.keepAliveMs,
        };
        live.add(entry);
        ensureTicker(options.keepAliveMs);
      },
      async pull(controller) {
        try {
          const { value, done } = await iterator.next();
          if (done) {
            close();
            controller.close();
            return;
          }
          controller.enqueue(encoder.encode(value));
          if (entry) entry.lastWrite = performance.now();
        } catch (error) {
          // Encoders turn failures into in-band error frames; reaching here means the encoder itself broke.
          close();
          controller.error(error);
        }
      },
      async cancel() {
        close();
        await iterator.return?.();
      },
    },
    { highWaterMark: 0 },
  );
  return new Response(body, {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache",
      connection: "keep-alive",
      "x-accel-buffering": "no",
      ...options.headers,
    },
  });
}
