/**
 * A client that sends one request and then never reads its answer (or only its head): a raw socket, paused once
 * the first bytes arrived, so the server sees exactly what a stalled or careless client looks like — the kernel
 * buffers fill, then the server's writes stay pending.
 */
import type { Socket } from "bun";

export interface UnreadClient {
  /** The head of the answer (status line and headers), once it arrived. */
  head: Promise<string>;
  /** True once the server closed the connection. */
  closed(): boolean;
  close(): void;
}

/** POSTs `body` as JSON to `url` with `headers`, reads the answer's head, then stops reading. */
export async function postAndStopReading(url: string, body: unknown, headers: Record<string, string>): Promise<UnreadClient> {
  const target = new URL(url);
  const payload = JSON.stringify(body);
  let onHead!: (head: string) => void;
  const head = new Promise<string>((resolve) => (onHead = resolve));
  let received = "";
  let closed = false;
  const socket: Socket<undefined> = await Bun.connect({
    hostname: target.hostname,
    port: Number(target.port),
    socket: {
      data(s, bytes) {
        if (received.includes("\r\n\r\n")) return;
        received += Buffer.from(bytes).toString("latin1");
        const end = received.indexOf("\r\n\r\n");
        if (end === -1) return;
        onHead(received.slice(0, end));
        // From now on nothing is read: the kernel's buffers fill and the server's writes wait.
        s.pause();
      },
      close() {
        closed = true;
      },
      error() {
        closed = true;
      },
    },
  });
  const lines = Object.entries({ host: target.host, "content-type": "application/json", "content-length": String(Buffer.byteLength(payload)), ...headers }).map(([k, v]) => `${k}: ${v}`);
  socket.write(`POST ${target.pathname} HTTP/1.1\r\n${lines.join("\r\n")}\r\n\r\n${payload}`);
  return { head, closed: () => closed, close: () => socket.terminate() };
}

/** The value of header `name` in a head read by `postAndStopReading`. */
export function headerOf(head: string, name: string): string | undefined {
  for (const line of head.split("\r\n").slice(1)) {
    const colon = line.indexOf(":");
    if (line.slice(0, colon).trim().toLowerCase() === name) return line.slice(colon + 1).trim();
  }
  return undefined;
}
