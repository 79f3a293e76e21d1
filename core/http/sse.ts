/**
 * Server-sent events, built in one place: frames are relayed as they arrive (pull-based, so a slow client
 * applies back-pressure upstream), idle streams get keep-alive comments from ONE shared ticker (no timer per
 * stream or per chunk), and a client that goes away cancels the source (which aborts the upstream request).
 */
const encoder = new TextEncoder();

/** SSE comment: clients skip lines starting with ':' (reference b10). */
export const KEEP_ALIVE_COMMENT = ": SERVICE PROCESSING\n\n";

interface LiveStream {
  controller: ReadableStreamDirectController;
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
        stream.controller.write(stream.keepAlive);
        void stream.controller.flush();
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
  /**
   * Runs when the client went away before the first frame was pulled (Bun then cancels the body without ever
   * pulling it): `frames` was never started, so whatever feeds it must be released by its owner.
   */
  onUnread?: () => void;
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
  // A direct stream (Bun): frames go straight into the response sink, with no queue, no per-frame pull promise and
  // no re-encoding of strings into a fresh buffer; awaiting a pending write is the back-pressure.
  const body = new ReadableStream({
    type: "direct",
    async pull(controller: ReadableStreamDirectController) {
      // A reader pulls again after the end: there is nothing more.
      if (closed) {
        controller.close();
        return;
      }
      entry = { controller, lastWrite: performance.now(), keepAlive: keepAliveOf(options.keepAliveFrame ?? KEEP_ALIVE_COMMENT), keepAliveMs: options.keepAliveMs };
      live.add(entry);
      ensureTicker(options.keepAliveMs);
      try {
        for (;;) {
          const { value, done } = await iterator.next();
          if (done || closed) break;
          const written = controller.write(value);
          const flushed = controller.flush();
          if (typeof written !== "number") await written;
          if (typeof flushed !== "number") await flushed;
          entry.lastWrite = performance.now();
        }
      } catch (error) {
        // Encoders turn failures into in-band error frames; reaching here means the encoder itself broke.
        close();
        controller.close(error instanceof Error ? error : new Error(String(error)));
        return;
      }
      close();
      controller.close();
    },
    async cancel() {
      // Before close(): what the owner settles on release belongs in the request's log line.
      if (entry === undefined && !closed) options.onUnread?.();
      close();
      await iterator.return?.();
    },
  } as Bun.DirectUnderlyingSource as unknown as ConstructorParameters<typeof ReadableStream<Uint8Array>>[0]);
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
