/**
 * ONE loopback fake of the OpenAI-compatible long tail, behaving like each kind of server (./dialects.ts) under its
 * own path prefix: `POST /<kind>/v1/chat/completions` and `GET /<kind>/v1/models`. It checks the key cloud kinds need,
 * refuses what each server refuses (with that server's status and error body), and answers the next scripted
 * `Answer` (or the default one) in that server's dialect, whole or streamed as asked. Every request is recorded.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { type Answer, chunks, completion, type KindName, KIND_NAMES, keyOf, LOCAL_KINDS, refusal, unauthorized } from "./dialects.ts";

export interface CompatibleRequest {
  kind: KindName;
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface FakeCompatible {
  origin: string;
  port: number;
  /** `${origin}/<kind>/v1`: the base URL of a provider of that kind. */
  baseUrl(kind: KindName): string;
  readonly requests: CompatibleRequest[];
  /** Chat requests only (not model listings), optionally of one kind. */
  chats(kind?: KindName): CompatibleRequest[];
  /** The last chat request; throws when none arrived. */
  lastChat(): CompatibleRequest;
  /** Queues answers for the next chat requests of any kind (a request with none queued gets the default answer). */
  answer(...answers: Answer[]): void;
  /** What `GET /<kind>/v1/models` lists (entries as that server writes them); a kind without a list answers 404. */
  models: Partial<Record<KindName, Array<Record<string, unknown>>>>;
  reset(): void;
  stop(): Promise<void>;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

/** Starts the fake on `port` (default: any free one) on 127.0.0.1. */
export async function startFakeCompatible(options: { port?: number } = {}): Promise<FakeCompatible> {
  const requests: CompatibleRequest[] = [];
  const queue: Answer[] = [];
  const models: FakeCompatible["models"] = {};
  let replies = 0;

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? "/", "http://fake.local");
    const match = /^\/([a-z]+)\/v1\/(chat\/completions|models)$/.exec(url.pathname);
    const kind = match?.[1] as KindName | undefined;
    const raw = await readBody(req);
    let body: Record<string, unknown> = {};
    try {
      body = raw === "" ? {} : (JSON.parse(raw) as Record<string, unknown>);
    } catch {
      // recorded as {}
    }
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers[name] = value;
    if (kind === undefined || !KIND_NAMES.includes(kind)) return json(res, 404, { error: { message: `fake: no route ${req.method} ${url.pathname}` } });
    requests.push({ kind, method: req.method ?? "", path: url.pathname, headers, body });
    const local = LOCAL_KINDS.includes(kind);
    if (!local && headers.authorization !== `Bearer ${keyOf(kind)}`) {
      const denied = unauthorized(kind);
      return json(res, denied.status, denied.body);
    }
    if (match![2] === "models") {
      const list = models[kind];
      return list === undefined ? json(res, 404, { error: { message: "no models" } }) : json(res, 200, { object: "list", data: list });
    }
    if (req.method !== "POST") return json(res, 405, { error: { message: "POST only" } });
    const refused = refusal(kind, body);
    if (refused !== undefined) return json(res, refused.status, refused.body);
    const answer = queue.shift() ?? {};
    if (answer.fail !== undefined) return json(res, answer.fail.status, answer.fail.body);
    const n = ++replies;
    if (body.stream !== true) return json(res, 200, completion(kind, body, answer, n));
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    for (const chunk of chunks(kind, body, answer, n)) res.write(`data: ${JSON.stringify(chunk)}\n\n`);
    res.end("data: [DONE]\n\n");
  }

  const server = createServer((req, res) => void handle(req, res).catch(() => res.socket?.destroy()));
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, "127.0.0.1", resolve);
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;
  const chats = (kind?: KindName) => requests.filter((r) => r.path.endsWith("/chat/completions") && (kind === undefined || r.kind === kind));
  return {
    origin,
    port,
    baseUrl: (kind) => `${origin}/${kind}/v1`,
    requests,
    chats,
    lastChat() {
      const last = chats().at(-1);
      if (!last) throw new Error("fake: no chat request was received");
      return last;
    },
    answer: (...answers) => void queue.push(...answers),
    models,
    reset() {
      requests.length = 0;
      queue.length = 0;
    },
    async stop() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
