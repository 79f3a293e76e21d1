/**
 * The gateway as `npm run build:binary` builds it, started from an empty directory on a free loopback port: what
 * the browser tests drive (the page they load is the one embedded in the binary).
 */
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "../..");

export interface BinaryGateway {
  origin: string;
  base: string;
  dir: string;
  stop(): Promise<void>;
}

/**
 * `files` are copied into the binary's empty working directory first (name there → source path), e.g. a third-party
 * extension the config loads by a relative path, with no node_modules beside it.
 */
export async function startBinaryGateway(options: { adminKey: string; config: Record<string, unknown>; env?: Record<string, string>; files?: Record<string, string> }): Promise<BinaryGateway> {
  const dir = mkdtempSync(join(tmpdir(), "gw-admin-"));
  const outfile = join(dir, "gateway");
  const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["build:binary"]!;
  const build = Bun.spawnSync(script.split(/\s+/).map((arg) => (arg === "dist/gateway" ? outfile : arg)), { cwd: root, stdout: "pipe", stderr: "pipe" });
  if (build.exitCode !== 0) throw new Error(`build:binary failed: ${build.stderr.toString()}`);
  for (const [name, source] of Object.entries(options.files ?? {})) copyFileSync(source, join(dir, name));
  writeFileSync(join(dir, "gateway.config.json"), JSON.stringify(options.config));
  const child = Bun.spawn([outfile], {
    cwd: dir,
    env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", GATEWAY_ADMIN_KEY: options.adminKey, LOG_LEVEL: "info", GATEWAY_CONFIG: join(dir, "gateway.config.json"), ...options.env },
    stdout: "pipe",
    stderr: "pipe",
  });
  const reader = (child.stdout as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + 20_000;
  let base = "";
  while (!base && Date.now() < deadline) {
    const next = await Promise.race([reader.read(), Bun.sleep(deadline - Date.now()).then(() => undefined)]);
    if (!next || next.done) break;
    text += decoder.decode(next.value, { stream: true });
    base = /"url":"(http:\/\/127\.0\.0\.1:\d+\/api\/v1)","providers"/.exec(text)?.[1] ?? "";
  }
  // Keep draining stdout so the child never blocks on a full pipe.
  void (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
  })();
  if (!base) {
    child.kill("SIGKILL");
    throw new Error(`the binary did not start:\n${text}\n${await new Response(child.stderr as ReadableStream<Uint8Array>).text()}`);
  }
  return {
    origin: base.replace(/\/api\/v1$/, ""),
    base,
    dir,
    async stop() {
      child.kill("SIGTERM");
      await Promise.race([child.exited, Bun.sleep(5_000)]);
      if (child.exitCode === null) child.kill("SIGKILL");
    },
  };
}
