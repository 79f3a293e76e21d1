/**
 * Raw HTTP over a loopback socket, for what `fetch` cannot send: HTTP/1.0 without Host, odd Host headers, a body
 * that stalls or trickles. Resolves when the server closes the connection or `waitMs` passes.
 */

export interface RawReply {
  /** The status of the first response, or 0 when none arrived. */
  status: number;
  head: string;
  body: string;
  /** Milliseconds from connecting to the first byte of the reply (undefined: none arrived). */
  firstByteMs: number | undefined;
  /** Milliseconds from connecting until the server closed the connection (undefined: still open at the end). */
  closedMs: number | undefined;
}

export interface RawOptions {
  /** Written once connected. */
  send: string;
  /** Written every `everyMs` afterwards while the connection is open (a trickling body). */
  trickle?: { text: string; everyMs: number };
  /** Gives up after this long (default 5 s). */
  waitMs?: number;
}

export async function rawHttp(port: number, options: RawOptions): Promise<RawReply> {
  const started = performance.now();
  const decoder = new TextDecoder();
  let text = "";
  let firstByteMs: number | undefined;
  let closedMs: number | undefined;
  let timer: ReturnType<typeof setInterval> | undefined;
  let open: { end(): void } | undefined;
  await new Promise<void>((resolve) => {
    const giveUp = setTimeout(resolve, options.waitMs ?? 5000);
    void Bun.connect({
      hostname: "127.0.0.1",
      port,
      socket: {
        open(socket) {
          open = socket;
          socket.write(options.send);
          if (options.trickle) {
            const { text: piece, everyMs } = options.trickle;
            timer = setInterval(() => socket.write(piece), everyMs);
          }
        },
        data(_socket, bytes) {
          firstByteMs ??= performance.now() - started;
          text += decoder.decode(bytes);
        },
        close() {
          closedMs = performance.now() - started;
          clearTimeout(giveUp);
          resolve();
        },
        error() {
          closedMs ??= performance.now() - started;
          clearTimeout(giveUp);
          resolve();
        },
      },
    });
  });
  clearInterval(timer);
  // Whatever happened, the socket does not outlive the call.
  if (closedMs === undefined) open?.end();
  const split = text.indexOf("\r\n\r\n");
  const head = split === -1 ? text : text.slice(0, split);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0);
  return { status, head, body: split === -1 ? "" : text.slice(split + 4), firstByteMs, closedMs };
}
