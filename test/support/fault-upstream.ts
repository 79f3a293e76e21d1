/**
 * A loopback OpenAI-compatible upstream that fails on command, for fault-injection tests. It is a raw TCP server
 * (Bun.listen) speaking just enough HTTP/1.1, so it can do what an HTTP framework would not: reset the connection,
 * hang forever, send a malformed body, cut or stall a stream mid-way. Each request takes the next scripted fault
 * (then `fallback`, by default a normal answer) and is recorded, so tests can count upstream attempts.
 */
import type { Socket, TCPSocketListener } from "bun";

/** What the upstream does with one request. */
export type Fault =
  /** `keepAlive`: the (non-streamed) answer keeps the connection open for the next request. */
  | { kind: "ok"; text?: string; latencyMs?: number; chunkDelayMs?: number; keepAlive?: boolean }
  /** A 200 whose body is `body` as is (any JSON, or any text), with extra headers. */
  | { kind: "body"; body: string | Uint8Array; headers?: Record<string, string> }
  | { kind: "status"; status: number; retryAfter?: string; message?: string }
  | { kind: "reset" }
  | { kind: "hang" }
  | { kind: "malformed" }
  | { kind: "cut"; afterChunks: number }
  | { kind: "stall"; afterChunks: number };

export interface FaultRequest {
  body: Record<string, unknown>;
  fault: Fault;
  at: number;
}

export interface FaultUpstream {
  /** Base URL including `/v1`. */
  url: string;
  requests: FaultRequest[];
  /** Queues faults for the next requests, in order. */
  script(...faults: Fault[]): void;
  /** What requests do once the script is used up. */
  fallback: Fault;
  stop(): void;
}

interface Conn {
  buffer: Buffer;
  handled: boolean;
  timers: Array<ReturnType<typeof setTimeout>>;
}

/** Starts the fault upstream on 127.0.0.1 with a free port; `label` is echoed in answers (which provider spoke). */
export function startFaultUpstream(label = "fault"): FaultUpstream {
  const queue: Fault[] = [];
  const requests: FaultRequest[] = [];
  const state: { fallback: Fault } = { fallback: { kind: "ok" } };
  const listener: TCPSocketListener<Conn> = Bun.listen<Conn>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(socket) {
        socket.data = { buffer: Buffer.alloc(0), handled: false, timers: [] };
      },
      data(socket, chunk) {
        const conn = socket.data;
        if (conn.handled) return;
        conn.buffer = Buffer.concat([conn.buffer, chunk]);
        const parsed = parseRequest(conn.buffer);
        if (!parsed) return;
        const { body: request, length } = parsed;
        conn.handled = true;
        const fault = queue.shift() ?? state.fallback;
        requests.push({ body: request, fault, at: Date.now() });
        if (fault.kind === "ok" && fault.keepAlive && request.stream !== true) {
          // Answered, and the connection stays open for the next request (a keep-alive upstream).
          conn.buffer = conn.buffer.subarray(length);
          conn.handled = false;
          const payload = JSON.stringify(completion(request, fault.text ?? `hello from ${label}`));
          socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(payload)}\r\nconnection: keep-alive\r\n\r\n${payload}`);
          return;
        }
        respond(socket, request, fault, label);
      },
      close(socket) {
        for (const timer of socket.data?.timers ?? []) clearTimeout(timer);
      },
      error() {},
    },
  });
  return {
    url: `http://127.0.0.1:${listener.port}/v1`,
    requests,
    script: (...faults) => void queue.push(...faults),
    get fallback() {
      return state.fallback;
    },
    set fallback(fault: Fault) {
      state.fallback = fault;
    },
    stop: () => listener.stop(true),
  };
}

/** The JSON body (and the request's length in bytes) once headers and `content-length` bytes have arrived. */
function parseRequest(buffer: Buffer): { body: Record<string, unknown>; length: number } | undefined {
  const end = buffer.indexOf("\r\n\r\n");
  if (end < 0) return undefined;
  const head = buffer.subarray(0, end).toString("latin1");
  const length = Number(/\r\ncontent-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
  if (buffer.length < end + 4 + length) return undefined;
  try {
    return { body: JSON.parse(buffer.subarray(end + 4, end + 4 + length).toString("utf8")) as Record<string, unknown>, length: end + 4 + length };
  } catch {
    return { body: {}, length: end + 4 + length };
  }
}

function respond(socket: Socket<Conn>, body: Record<string, unknown>, fault: Fault, label: string): void {
  const later = (ms: number, fn: () => void) => socket.data.timers.push(setTimeout(fn, ms));
  const stream = body.stream === true;
  switch (fault.kind) {
    case "hang":
      return;
    case "reset":
      socket.terminate();
      return;
    case "status": {
      const headers: Record<string, string> = { "content-type": "application/json" };
      if (fault.retryAfter !== undefined) headers["retry-after"] = fault.retryAfter;
      const payload = JSON.stringify({ error: { message: fault.message ?? `${label} failed with ${fault.status}`, type: "fault", code: null } });
      writeAll(socket, fault.status, headers, payload);
      return;
    }
    case "body": {
      const payload = typeof fault.body === "string" ? Buffer.from(fault.body) : Buffer.from(fault.body);
      const head = Object.entries({ "content-type": "application/json", ...fault.headers, "content-length": String(payload.length), connection: "close" }).map(([k, v]) => `${k}: ${v}`);
      socket.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\n${head.join("\r\n")}\r\n\r\n`), payload]));
      socket.end();
      return;
    }
    case "malformed":
      if (stream) writeAll(socket, 200, { "content-type": "text/event-stream" }, "data: {not json\n\n");
      else writeAll(socket, 200, { "content-type": "application/json" }, '{"id": "x", "choices": [');
      return;
    case "ok":
      later(fault.latencyMs ?? 0, () => (stream ? streamAnswer(socket, body, fault.text ?? `hello from ${label}`, fault.chunkDelayMs ?? 0, undefined) : writeAll(socket, 200, { "content-type": "application/json" }, JSON.stringify(completion(body, fault.text ?? `hello from ${label}`)))));
      return;
    case "cut":
    case "stall":
      if (!stream) {
        if (fault.kind === "cut") writeAll(socket, 200, { "content-type": "application/json" }, '{"id":"cut');
        return;
      }
      streamAnswer(socket, body, `partial answer from ${label} that goes on`, 0, fault);
      return;
  }
}

function completion(body: Record<string, unknown>, text: string): Record<string, unknown> {
  const words = text.split(/\s+/).length;
  return {
    id: "chatcmpl-fault",
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: String(body.model ?? "fault"),
    choices: [{ index: 0, message: { role: "assistant", content: text }, finish_reason: "stop" }],
    usage: { prompt_tokens: promptTokens(body), completion_tokens: words, total_tokens: promptTokens(body) + words },
  };
}

function streamAnswer(socket: Socket<Conn>, body: Record<string, unknown>, text: string, delayMs: number, fault: Extract<Fault, { kind: "cut" | "stall" }> | undefined): void {
  socket.write(`HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n`);
  const base = { id: "chatcmpl-fault", object: "chat.completion.chunk", created: Math.floor(Date.now() / 1000), model: String(body.model ?? "fault") };
  const words = text.split(" ");
  const frames = words.map((w, i) => ({ ...base, choices: [{ index: 0, delta: i === 0 ? { role: "assistant", content: w } : { content: ` ${w}` }, finish_reason: null }] }));
  const tail = [
    { ...base, choices: [{ index: 0, delta: {}, finish_reason: "stop" }] },
    { ...base, choices: [], usage: { prompt_tokens: promptTokens(body), completion_tokens: words.length, total_tokens: promptTokens(body) + words.length } },
  ];
  const all = [...frames, ...tail];
  let sent = 0;
  const step = () => {
    if (fault && sent >= fault.afterChunks) {
      if (fault.kind === "cut") socket.end();
      return;
    }
    const frame = all[sent++];
    if (frame === undefined) {
      socket.write("data: [DONE]\n\n");
      socket.end();
      return;
    }
    socket.write(`data: ${JSON.stringify(frame)}\n\n`);
    socket.data.timers.push(setTimeout(step, delayMs));
  };
  step();
}

function writeAll(socket: Socket<Conn>, status: number, headers: Record<string, string>, payload: string): void {
  const lines = Object.entries({ ...headers, "content-length": String(Buffer.byteLength(payload)), connection: "close" }).map(([k, v]) => `${k}: ${v}`);
  socket.write(`HTTP/1.1 ${status} ${status < 400 ? "OK" : "Error"}\r\n${lines.join("\r\n")}\r\n\r\n${payload}`);
  socket.end();
}

function promptTokens(body: Record<string, unknown>): number {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ content?: unknown }>) : [];
  return messages.reduce((n, m) => n + 4 + (typeof m.content === "string" ? m.content.split(/\s+/).length : 0), 0);
}
