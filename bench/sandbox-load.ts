/**
 * `bun bench/sandbox-load.ts`: the gateway's request throughput while 20 sandboxes run busy loops (issue 13, "Tests
 * and figures"), per backend. One gateway on 127.0.0.1 (embedded defaults, the built-in simulator) answers plain chat
 * completions at concurrency 16 for SANDBOX_LOAD_MS (default 5 s), first with idle sandboxes, then while 20 containers
 * each run `while true; do :; done` (killed at their deadline). Prints req/s for both and the ratio.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createGateway } from "../core/bootstrap.ts";
import { buildConfig } from "../core/config/load.ts";
import { serveGateway } from "../core/serve.ts";
import { probeBwrap } from "../core/sandbox/bwrap/probe.ts";
import { resolveSandboxSettings } from "../core/sandbox/settings.ts";

const MS = Number(process.env.SANDBOX_LOAD_MS ?? 5_000);
const watchdog = setTimeout(() => process.exit(1), 10 * 60_000);
watchdog.unref();

async function run(backend: "just-bash" | "bwrap"): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-load-"));
  const config = buildConfig({ sandbox: { backend, dir: join(dir, "containers") } } as never, { DATABASE_URL: "sqlite://:memory:", GATEWAY_ADMIN_KEY: "bench-admin-key-0123", LOG_LEVEL: "silent" }, dir);
  const gateway = await createGateway(config, { logger: pino({ level: "silent" }) });
  const server = serveGateway({ ...config, host: "127.0.0.1", port: 0 }, gateway);
  const base = `http://127.0.0.1:${server.port}/api/v1`;
  const { key } = (await (await fetch(`${base}/keys`, { method: "POST", headers: { authorization: "Bearer bench-admin-key-0123", "content-type": "application/json" }, body: JSON.stringify({ name: "load" }) })).json()) as { key: string };
  const body = JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: "hello [sim tokens=20]" }] });
  const rate = async (): Promise<number> => {
    let done = 0;
    const until = performance.now() + MS;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (performance.now() < until) {
          const res = await fetch(`${base}/chat/completions`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
          await res.arrayBuffer();
          if (res.ok) done++;
        }
      }),
    );
    return done / (MS / 1000);
  };
  await rate(); // warm-up
  const idle = await rate();
  const service = gateway.deps.containers!;
  const busy = await Promise.all(Array.from({ length: 20 }, () => service.forRequest({ workspaceId: "bench" }).open({})));
  const loops = busy.map((container) => container.exec("while true; do :; done", { timeoutMs: MS * 3, maxOutputBytes: 1024 }).catch(() => undefined));
  await Bun.sleep(300);
  const loaded = await rate();
  console.log(`${backend}: ${idle.toFixed(0)} req/s idle, ${loaded.toFixed(0)} req/s with 20 busy sandboxes (${((loaded / idle) * 100).toFixed(0)} %)`);
  server.stop(true);
  await gateway.close();
  await Promise.race([Promise.all(loops), Bun.sleep(MS * 3)]);
  rmSync(dir, { recursive: true, force: true });
}

await run("just-bash");
const probe = await probeBwrap(resolveSandboxSettings({ backend: "bwrap" }));
if (probe.ok) await run("bwrap");
else console.log(`bwrap: not usable on this host (${probe.reason}), skipped`);
process.exit(0);
