/**
 * `bun bench/sandbox-load.ts`: the gateway's request throughput while 20 sandboxes run busy loops,
 * per backend. One gateway on 127.0.0.1 (embedded defaults, the built-in simulator) answers plain chat
 * completions at concurrency 16 for SANDBOX_LOAD_MS (default 5 s), first with idle sandboxes, then while 20 containers
 * each run `while true; do :; done` (killed at their deadline). Prints req/s for both and the ratio.
 */
import { chmodSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createGateway } from "../core/bootstrap.ts";
import { buildConfig } from "../core/config/load.ts";
import { serveGateway } from "../core/serve.ts";

const MS = Number(process.env.SANDBOX_LOAD_MS ?? 5_000);
const watchdog = setTimeout(() => process.exit(1), 10 * 60_000);
watchdog.unref();

async function run(backend: "just-bash" | "bwrap"): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-load-"));
  // bwrap runs commands as an unprivileged uid, which must be able to reach the container directory.
  chmodSync(dir, 0o755);
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
  let failed = 0;
  let measuring = true;
  // A loop cut by the gateway's shutdown after the measure is expected; one that fails before it spoils the figure.
  const loops = busy.map((container) =>
    container.exec("while true; do :; done", { timeoutMs: MS * 3, maxOutputBytes: 1024 }).catch((error: unknown) => {
      if (!measuring) return;
      failed++;
      console.error(`${backend}: a busy loop failed: ${String(error)}`);
    }),
  );
  await Bun.sleep(300);
  if (failed > 0) throw new Error(`${backend}: ${failed} busy loops did not start`);
  const loaded = await rate();
  measuring = false;
  console.log(`${backend}: ${idle.toFixed(0)} req/s idle, ${loaded.toFixed(0)} req/s with 20 busy sandboxes (${((loaded / idle) * 100).toFixed(0)} %)`);
  server.stop(true);
  await gateway.close();
  await Promise.race([Promise.all(loops), Bun.sleep(MS * 3)]);
  rmSync(dir, { recursive: true, force: true });
}

// Where the host cannot run bwrap, the gateway refuses to start (no sandbox.allow_fallback): skipped, saying why.
await run("bwrap").catch((error: unknown) => console.log(`bwrap: skipped (${String(error)})`));
// just-bash last: its workers may still be finishing their loops when the process ends.
if (process.env.SANDBOX_LOAD_ONLY !== "bwrap") await run("just-bash");
process.exit(0);
