/**
 * The HTTP provider simulator: a loopback server speaking the OpenAI chat-completions wire format, driven by the
 * same engine as the in-process adapter. Point the `openai` adapter (or any OpenAI client) at `url`.
 *
 * Streams are pull-driven: each SSE frame is produced when the connection asks for it, and a timer exists only
 * while a configured chunk delay is running, so thousands of concurrent slow streams cost little.
 */
import type { Server } from "bun";
import { completionBody, finishChunk, pieceChunk, usageChunk, type ChatIdentity } from "./chat-wire.ts";
import { simulate, type SimPlan } from "./engine.ts";
import { simRequestFromChat } from "./from-chat.ts";
import type { SimulatorOptions } from "./options.ts";
import { sleep } from "./sleep.ts";

/** Options of `startSimulatorServer`. */
export interface SimulatorServerOptions {
  /** 0 (the default) picks a free port. */
  port?: number;
  hostname?: string;
  /** Defaults for every request (a `[sim …]` directive overrides them per request). */
  defaults?: SimulatorOptions;
  /** Keep every request in `requests` (tests assert on what the gateway sent). */
  record?: boolean;
}

/** A request the server received, when recording. */
export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  /** Parsed JSON body, or the raw text when it was not JSON. */
  body: unknown;
}

/** Live counters of streamed replies (tests watch `cancelled` to see a client abort reach the upstream). */
export interface SimulatorStats {
  started: number;
  completed: number;
  cancelled: number;
  cut: number;
}

/** A running simulator. */
export interface SimulatorServer {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:40123/v1`. */
  url: string;
  port: number;
  requests: RecordedRequest[];
  stats: SimulatorStats;
  stop(): Promise<void>;
}

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };
const encoder = new TextEncoder();

/** Starts the simulator on loopback (by default) and resolves its address. */
export function startSimulatorServer(options: SimulatorServerOptions = {}): SimulatorServer {
  const requests: RecordedRequest[] = [];
  const stats: SimulatorStats = { started: 0, completed: 0, cancelled: 0, cut: 0 };
  const defaults = options.defaults ?? {};
  const server: Server<undefined> = Bun.serve({
    port: options.port ?? 0,
    hostname: options.hostname ?? "127.0.0.1",
    // Slow simulated streams may sit idle between chunks far longer than Bun's 10 s default.
    idleTimeout: 255,
    fetch: async (req) => {
      const path = new URL(req.url).pathname;
      if (req.method === "GET" && path === "/v1/models") {
        if (options.record) requests.push({ method: req.method, path, headers: headersOf(req), body: undefined });
        return Response.json({ object: "list", data: [{ id: "simulator", object: "model", created: 0, owned_by: "simulator" }] });
      }
      if (req.method === "POST" && path === "/v1/chat/completions") return chat(req, path);
      return errorResponse(404, `No route for ${req.method} ${path}`);
    },
  });

  async function chat(req: Request, path: string): Promise<Response> {
    const text = await req.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      if (options.record) requests.push({ method: req.method, path, headers: headersOf(req), body: text });
      return errorResponse(400, "Request body is not valid JSON");
    }
    if (options.record) requests.push({ method: req.method, path, headers: headersOf(req), body });
    const simRequest = simRequestFromChat(body);
    if (typeof simRequest === "string") return errorResponse(400, simRequest);
    const plan = simulate(simRequest, defaults);
    try {
      await sleep(plan.timing.latencyMs, req.signal);
    } catch {
      // The client left during the latency; nobody reads this.
      return new Response(null, { status: 499 });
    }
    if (plan.failure !== undefined) return errorResponse(plan.failure.status, plan.failure.message);
    const fields = body as { model?: unknown; stream?: unknown; stream_options?: { include_usage?: unknown } };
    const identity: ChatIdentity = { model: typeof fields.model === "string" ? fields.model : "simulator", created: Math.floor(Date.now() / 1000) };
    if (fields.stream === true) {
      return new Response(sseBody(plan, identity, fields.stream_options?.include_usage === true, req.signal, stats), { headers: SSE_HEADERS });
    }
    const json = JSON.stringify(completionBody(plan, identity));
    // `cut` on a non-streaming reply: a body truncated mid-JSON, the non-streaming face of a dropped connection.
    const payload = plan.timing.cutAfter === undefined ? json : json.slice(0, Math.floor(json.length / 2));
    return new Response(payload, { headers: { "content-type": "application/json" } });
  }

  return {
    url: `http://${server.hostname}:${server.port}/v1`,
    port: server.port ?? 0,
    requests,
    stats,
    stop: async () => {
      await server.stop(true);
    },
  };
}

/**
 * The SSE body: one frame per piece (the first carrying the assistant role), then the finish chunk, the usage chunk
 * when asked, and `[DONE]`. Each `pull` produces one frame, waiting the chunk delay first (none before the first).
 */
function sseBody(plan: SimPlan, identity: ChatIdentity, includeUsage: boolean, signal: AbortSignal, stats: SimulatorStats): ReadableStream<Uint8Array> {
  let next = 0;
  let done = false;
  const stop = new AbortController();
  const onClientGone = (): void => {
    if (done) return;
    done = true;
    stats.cancelled++;
    stop.abort();
  };
  signal.addEventListener("abort", onClientGone, { once: true });
  const end = (): void => {
    done = true;
    signal.removeEventListener("abort", onClientGone);
  };
  const frame = (value: unknown): Uint8Array => encoder.encode(`data: ${typeof value === "string" ? value : JSON.stringify(value)}\n\n`);
  stats.started++;
  return new ReadableStream<Uint8Array>({
    pull: async (controller) => {
      if (done) return;
      try {
        await sleep(next === 0 ? 0 : plan.timing.chunkDelayMs, stop.signal);
      } catch {
        return;
      }
      if (done) return;
      const cut = plan.timing.cutAfter;
      if (cut !== undefined && next >= cut) {
        // A connection dropped mid-stream: no finish, no usage, no [DONE].
        end();
        stats.cut++;
        controller.close();
        return;
      }
      const piece = plan.piece(next);
      if (piece !== undefined) {
        controller.enqueue(frame(pieceChunk(plan, identity, piece, next === 0)));
        next++;
        return;
      }
      controller.enqueue(frame(finishChunk(plan, identity, next === 0)));
      if (includeUsage) controller.enqueue(frame(usageChunk(plan, identity)));
      controller.enqueue(frame("[DONE]"));
      end();
      stats.completed++;
      controller.close();
    },
    cancel: () => onClientGone(),
  });
}

function errorResponse(status: number, message: string): Response {
  return Response.json({ error: { message, type: "simulator_error", param: null, code: null } }, { status });
}

function headersOf(req: Request): Record<string, string> {
  const out: Record<string, string> = {};
  req.headers.forEach((value, key) => {
    out[key] = value;
  });
  return out;
}
