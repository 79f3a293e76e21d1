/**
 * What the A/B benches share (bench/ab.ts, bench/observability.ts): child processes that announce themselves on
 * stdout, a gateway started from a bundle with an inference key made for it, and the two load scenarios. Every child
 * is killed at exit or by the watchdog, so a bench always stops by itself.
 */
import { join } from "node:path";
import { pinned } from "./child-process.ts";
import { BODIES, MODEL } from "./requests.ts";

export { MODEL };
export const ADMIN_KEY = "bench-admin-key";

/**
 * The loads the A/B benches compare (chat completions against the simulator's model, the bodies of `npm run
 * bench`): a plain request, a burst of short streams, and long streams, whose CPU per chunk is the relay's cost.
 */
export const SCENARIOS: ReadonlyArray<{ name: string; concurrency: number; stream: boolean; body: string; perChunk?: boolean }> = [
  { name: "non-stream c=64", concurrency: 64, stream: false, body: BODIES.plain },
  { name: "stream burst c=64", concurrency: 64, stream: true, body: BODIES.burst },
  { name: "stream 200 chunks c=16", concurrency: 16, stream: true, body: BODIES.long, perChunk: true },
];

export interface Child {
  pid: number;
  port: number;
  url?: string;
  /** Each gateway's port, when the child runs several (bench/gateway-variants.ts). */
  ports?: Record<string, number>;
  proc: ReturnType<typeof Bun.spawn>;
}

export class Fleet {
  private readonly procs: Array<ReturnType<typeof Bun.spawn>> = [];

  /** Kills everything when `watchdogMs` passes (the bench then failed: exit 1). */
  constructor(watchdogMs = 10 * 60_000) {
    setTimeout(() => {
      this.killAll();
      process.exit(1);
    }, watchdogMs).unref();
  }

  /** Starts `entry` under Bun (on `cores` when given: taskset) and waits for its `{"ready": …, "port"}` line. */
  async spawn(entry: string, env: Record<string, string>, cores?: string): Promise<Child> {
    const proc = Bun.spawn(pinned([process.execPath, entry], cores), { env: { ...process.env, ...env }, stdout: "pipe", stderr: "inherit", ipc() {} });
    this.procs.push(proc);
    const reader = (proc.stdout as ReadableStream<Uint8Array>).getReader();
    let text = "";
    for (;;) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`${entry} exited before it was ready`);
      text += new TextDecoder().decode(value);
      const line = text.split("\n").find((l) => l.includes('"ready"'));
      if (line) {
        reader.releaseLock();
        return { pid: proc.pid, proc, ...(JSON.parse(line) as { port: number; url?: string; ports?: Record<string, number> }) };
      }
    }
  }

  /** A bundled gateway (`entry`) on its own data directory, and the request target of an inference key made on it. */
  async gateway(entry: string, name: string, dataDir: string, env: Record<string, string>, cores?: string) {
    await Bun.write(join(dataDir, ".keep"), "");
    const child = await this.spawn(entry, { BENCH_DIR: dataDir, BENCH_MODEL: MODEL, BENCH_ADMIN_KEY: ADMIN_KEY, ...env }, cores);
    return target(name, child.pid, child.port);
  }

  /**
   * Gateways of one process (bench/gateway-variants.ts, bundled as `entry`), one per `variants` entry (`name` →
   * `observe`), each on its own data directory under `dataDir`, with their request targets.
   */
  async gatewaysInOneProcess(entry: string, dataDir: string, variants: Record<string, string>, env: Record<string, string>) {
    for (const name of Object.keys(variants)) await Bun.write(join(dataDir, name, ".keep"), "");
    const list = Object.entries(variants).map(([name, observe]) => `${name}:${observe}`).join(",");
    const child = await this.spawn(entry, { BENCH_DIR: dataDir, BENCH_MODEL: MODEL, BENCH_ADMIN_KEY: ADMIN_KEY, BENCH_VARIANTS: list, ...env });
    return Promise.all(Object.keys(variants).map((name) => target(name, child.pid, child.ports![name]!)));
  }

  killAll(): void {
    for (const proc of this.procs) proc.kill("SIGKILL");
  }
}

/** The request target of a running bench gateway: an inference key made on it. */
async function target(name: string, pid: number, port: number) {
  const base = `http://127.0.0.1:${port}/api/v1`;
  const created = await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" }, body: JSON.stringify({ name }) });
  const key = ((await created.json()) as { key: string }).key;
  return { name, pid, url: `${base}/chat/completions`, headers: { "content-type": "application/json", authorization: `Bearer ${key}` } };
}

/** Bundles a tree's bench/gateway-server.ts (or another bench entry) like `npm start` does; its entry point's path. */
export async function bundleGateway(root: string, outdir: string, entryFile = "bench/gateway-server.ts"): Promise<string> {
  const built = await Bun.build({ entrypoints: [join(root, entryFile)], target: "bun", minify: true, outdir });
  const entry = built.success ? built.outputs.find((o) => o.kind === "entry-point") : undefined;
  if (!entry) throw new Error(`bundling ${root}'s gateway failed`);
  return entry.path;
}
