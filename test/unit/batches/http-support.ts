/** Helpers shared by the batch integration tests (kept here, in the batches test area): submit, poll a batch. */
import { expect } from "bun:test";
import type { TestGateway } from "../../support/gateway.ts";

/** The Batch object as the API returns it (spec "Batch"). */
export interface BatchObject {
  id: string;
  object: "batch";
  endpoint: string;
  model: string | null;
  status: string;
  completion_window: string;
  created_at: number;
  finalized_at: number | null;
  request_counts: { completed: number; failed: number; total: number };
  error: { message: string; code?: number } | null;
  results: ResultEntry[] | null;
  usage: Record<string, unknown> & { cost: number; prompt_tokens: number; completion_tokens: number; total_tokens: number } | null;
}

/** One result entry. */
export interface ResultEntry {
  id: string;
  custom_id: string;
  response?: { body: Record<string, unknown> & { id: string; object: string; usage: { prompt_tokens: number; completion_tokens: number; cost: number } }; request_id: string; status_code: number };
  error?: { message: string; param: string | null; type: string; error_type: string };
}

/** The error envelope. */
export interface Envelope {
  error: { code: number; message: string; metadata: Record<string, unknown> };
}

/** Submits a batch with the gateway's inference key (or `key`), expecting 202. */
export async function submit(gw: TestGateway, json: unknown, key?: string): Promise<BatchObject> {
  const res = await gw.request("/batches", { method: "POST", json, ...(key ? { key } : {}) });
  if (res.status !== 202) throw new Error(`submit: ${res.status} ${await res.text()}`);
  return (await res.json()) as BatchObject;
}

/** Fetches a batch, expecting 200. */
export async function getBatch(gw: TestGateway, id: string, key?: string): Promise<BatchObject> {
  const res = await gw.request(`/batches/${id}`, key ? { key } : {});
  expect(res.status).toBe(200);
  return (await res.json()) as BatchObject;
}

/** Polls until `done` holds; records every status seen. */
export async function waitForBatch(gw: TestGateway, id: string, done: (batch: BatchObject) => boolean, timeoutMs = 10_000): Promise<{ batch: BatchObject; seen: string[] }> {
  const seen: string[] = [];
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const batch = await getBatch(gw, id);
    if (seen.at(-1) !== batch.status) seen.push(batch.status);
    if (done(batch)) return { batch, seen };
    if (Date.now() > deadline) throw new Error(`batch ${id} still ${batch.status} after ${timeoutMs} ms (seen ${seen.join(" → ")})`);
    await Bun.sleep(15);
  }
}

/** A chat body whose user text carries `marker` (so the upstream's recorded requests can be counted per item). */
export function chatItem(customId: string, marker: string, extra: Record<string, unknown> = {}) {
  return { custom_id: customId, body: { messages: [{ role: "user", content: `${marker}` }], ...extra } };
}

/** Terminal batch statuses (README "Batches"). */
export const TERMINAL = ["completed", "failed", "expired", "cancelled"];

/** A `bun server.ts` child process on a loopback port. */
export interface GatewayProcess {
  base: string;
  child: import("bun").Subprocess<"ignore", "pipe", "pipe">;
}

/** Starts `bun server.ts` with `env` and resolves once it listens (its stdout says so). */
export async function spawnGateway(env: Record<string, string>, timeoutMs = 20_000): Promise<GatewayProcess> {
  const root = new URL("../../../", import.meta.url).pathname;
  // Port 0: the OS picks a free port (random picks collide now and then); the listening line names it.
  const child = Bun.spawn(["bun", "server.ts"], {
    cwd: root,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", REDIS_URL: "", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = child.stdout.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  // One read in flight at a time: a read abandoned by a timeout would swallow the chunk it later receives.
  let pending = reader.read();
  const listening = /"url":"(http:\/\/127\.0\.0\.1:\d+\/api\/v1)"[^\n]*gateway listening/;
  while (!listening.test(text)) {
    if (Date.now() > deadline) {
      child.kill("SIGKILL");
      throw new Error(`gateway did not start: ${text}${await new Response(child.stderr).text()}`);
    }
    const chunk = await Promise.race([pending, Bun.sleep(100).then(() => undefined)]);
    if (chunk === undefined) continue;
    if (chunk.done) throw new Error(`gateway exited: ${text}${await new Response(child.stderr).text()}`);
    text += decoder.decode(chunk.value, { stream: true });
    pending = reader.read();
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  void (async () => {
    let next = await pending;
    while (!next.done) next = await reader.read();
  })().catch(() => undefined);
  return { base: listening.exec(text)![1]!, child };
}

/** JSON request against a spawned gateway. */
export async function call(base: string, path: string, key: string, init: { method?: string; json?: unknown } = {}): Promise<Response> {
  return fetch(base + path, {
    method: init.method ?? "GET",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    ...(init.json === undefined ? {} : { body: JSON.stringify(init.json) }),
  });
}
