/**
 * Whether a gateway answers `/health` while a big request is being worked on: the request's body is streamed in
 * pieces and, once every byte of it is handed over and `busy` says the work is under way (or the big request has
 * answered), `/health` is asked; the answer says which finished first. Ordering, not durations: a gateway whose
 * event loop the work holds answers `/health` only after the big request.
 */
import { readFileSync } from "node:fs";

type Json = Record<string, any>;

export interface HealthDuring {
  /** `["health", "big"]` when `/health` was answered first. */
  order: string[];
  healthStatus: number;
  status: number;
  json: Json;
}

/**
 * Resolves once process `pid` has spent `cpuMs` more of CPU time (all its threads; Linux `/proc`): past what reading
 * and parsing a request takes, so its heavy work has begun. A measure of work done, not of time waited.
 */
export async function spentCpu(pid: number, cpuMs: number): Promise<void> {
  const ticksPerMs = 100 / 1_000; // USER_HZ
  const cpu = () => {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / ticksPerMs;
  };
  const from = cpu();
  while (cpu() - from < cpuMs) await Bun.sleep(5);
}

export async function healthDuring(base: string, path: string, key: string, body: unknown, busy: () => Promise<void> = async () => undefined): Promise<HealthDuring> {
  const bytes = new TextEncoder().encode(JSON.stringify(body));
  let handedOver!: () => void;
  const sent = new Promise<void>((resolve) => (handedOver = resolve));
  let offset = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        handedOver();
        return;
      }
      controller.enqueue(bytes.subarray(offset, offset + 256 * 1024));
      offset += 256 * 1024;
    },
  });
  const order: string[] = [];
  const headers = { authorization: `Bearer ${key}`, "content-type": "application/json", "content-length": String(bytes.length) };
  const big = fetch(base + path, { method: "POST", headers, body: stream }).then(async (res) => {
    order.push("big");
    return { status: res.status, json: (await res.json()) as Json };
  });
  await sent;
  await Promise.race([busy(), big]);
  const healthStatus = await fetch(`${base}/health`).then((res) => (order.push("health"), res.status));
  return { order, healthStatus, ...(await big) };
}
