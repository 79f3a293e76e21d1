/**
 * Server-sent events, built in one place: frames are relayed as they arrive (pull-based, so a slow client
 * applies back-pressure upstream), idle streams get keep-alive comments from ONE shared ticker (no timer per
 * stream or per chunk), and a client that goes away cancels the source (which aborts the upstream request).
 *
 * A client that stays connected but takes no bytes (or too few) is treated as gone: what
 * one stream holds for it is bounded by one pending frame (the write is awaited before the next is made) plus the
 * socket's buffers, and a write that stays pending for `writeTimeoutMs` ends the stream — the connection is closed,
 * the source released (the upstream stopped, its usage metered, the credit hold settled). No keep-alive comment is
 * queued behind a pending write: it would only pile up, and its activity would keep Bun's idle time-out from ever
 * closing the connection.
 */
const encoder = new TextEncoder();

/** SSE comment: clients skip lines starting with ':'. */
export const KEEP_ALIVE_COMMENT = ": SERVICE PROCESSING\n\n";

interface LiveStream {
  controller: ReadableStreamDirectController;
  lastWrite: number;
  keepAlive: Uint8Array;
  keepAliveMs: number;
  /** When the pending write started (the client is not taking bytes), or undefined. */
  writingSince: number | undefined;
  writeTimeoutMs: number;
  /** Ends the stream: the client took nothing for `writeTimeoutMs`. */
  stalled(): void;
}

/** Default of `SseOptions.writeTimeoutMs` (config `server.stream_write_timeout_ms`). */
export const DEFAULT_WRITE_TIMEOUT_MS = 30_000;

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

/** Runs the shared ticker at least every `periodMs` / 2 (keep-alives and write time-outs share it). */
function ensureTicker(periodMs: number): void {
  if (ticker && tickerPeriod <= Math.max(50, Math.floor(periodMs / 2))) return;
  if (ticker) clearInterval(ticker);
  tickerPeriod = Math.max(50, Math.floor(periodMs / 2));
  ticker = setInterval(() => {
    const now = performance.now();
    for (const stream of live) {
      if (stream.writingSince !== undefined) {
        if (now - stream.writingSince >= stream.writeTimeoutMs) stream.stalled();
        continue;
      }
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
  /** A write the client leaves pending this long ends the stream (default `DEFAULT_WRITE_TIMEOUT_MS`). */
  writeTimeoutMs?: number;
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
      const writeTimeoutMs = options.writeTimeoutMs ?? DEFAULT_WRITE_TIMEOUT_MS;
      const stream: LiveStream = {
        controller,
        lastWrite: performance.now(),
        keepAlive: keepAliveOf(options.keepAliveFrame ?? KEEP_ALIVE_COMMENT),
        keepAliveMs: options.keepAliveMs,
        writingSince: undefined,
        writeTimeoutMs,
        stalled: () => {
          if (closed) return;
          close();
          // Closing with an error drops the connection (a plain close would wait for the unread bytes to drain);
          // the pending write then settles, and the source is released like a client that left.
          controller.close(new Error(`client read nothing for ${writeTimeoutMs} ms`));
          void iterator.return?.()?.catch(() => undefined);
        },
      };
      entry = stream;
      live.add(stream);
      ensureTicker(Math.min(options.keepAliveMs, writeTimeoutMs));
      try {
        for (;;) {
          const { value, done } = await iterator.next();
          if (done || closed) break;
          const written = controller.write(value);
          const flushed = controller.flush();
          if (typeof written !== "number" || typeof flushed !== "number") {
            stream.writingSince = performance.now();
            if (typeof written !== "number") await written;
            if (typeof flushed !== "number") await flushed;
            stream.writingSince = undefined;
            // Ended meanwhile (the write time-out): the controller is closed, nothing more is written.
            if (closed) return;
          }
          stream.lastWrite = performance.now();
        }
      } catch (error) {
        // Ended by the write time-out: the controller is closed already.
        if (closed) return;
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
