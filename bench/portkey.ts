/**
 * Portkey's open-source gateway as a yardstick of `npm run bench`: installed from the npm registry into
 * bench/.peers/portkey (ignored by git) on the first run, and run as its package runs it (`node
 * build/start-server.js`, its `start:node` script; `npx @portkey-ai/gateway` runs the same file) with
 * bench/portkey-child.mjs preloaded, which keeps it on 127.0.0.1 and lets the bench talk to it like its other
 * children. Requests reach the bench's mock upstream as Portkey's `openai` provider with a custom host, set per
 * request by headers (its README, "x-portkey-provider" and "x-portkey-custom-host"; loopback hosts are trusted by
 * default). When it cannot be installed or run, the reason is returned and its ratios are reported as not measured.
 */
import { existsSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { SpawnOptions } from "./child-process.ts";

export const PORTKEY_PACKAGE = "@portkey-ai/gateway";

export interface PortkeyInstall {
  version: string;
  /** How to start it (before pinning), with the port chosen by the system. */
  spawn: SpawnOptions;
}

/** The install under `peersDir`, installing it first if it is not there; a reason when there is none. */
export async function preparePortkey(peersDir: string, log: (message: string) => void): Promise<PortkeyInstall | { skip: string }> {
  if (process.env.BENCH_PORTKEY === "0") return { skip: "BENCH_PORTKEY=0" };
  const node = Bun.which("node");
  if (!node) return { skip: "no node on PATH" };
  const prefix = join(peersDir, "portkey");
  const packageDir = join(prefix, "node_modules", ...PORTKEY_PACKAGE.split("/"));
  const entry = join(packageDir, "build", "start-server.js");
  if (!existsSync(entry)) {
    const npm = Bun.which("npm");
    if (!npm) return { skip: "no npm on PATH to install it" };
    log(`installing ${PORTKEY_PACKAGE} into ${prefix} (first run only)`);
    mkdirSync(prefix, { recursive: true });
    const install = Bun.spawn([npm, "install", "--prefix", prefix, "--no-audit", "--no-fund", PORTKEY_PACKAGE], { stdout: "pipe", stderr: "pipe" });
    const timer = setTimeout(() => install.kill("SIGKILL"), 180_000);
    const [code, stderr] = await Promise.all([install.exited, new Response(install.stderr as ReadableStream).text()]);
    clearTimeout(timer);
    if (code !== 0 || !existsSync(entry)) return { skip: `npm install ${PORTKEY_PACKAGE} failed (exit ${code}): ${stderr.trim().split("\n").slice(-3).join(" | ")}` };
  }
  const version = (JSON.parse(readFileSync(join(packageDir, "package.json"), "utf8")) as { version: string }).version;
  return {
    version,
    spawn: {
      command: [node, "--expose-gc", "--import", join(import.meta.dir, "portkey-child.mjs"), entry, "--port=0", "--headless"],
      cwd: prefix,
      env: {},
      serialization: "json",
    },
  };
}

/** The headers that send a request through Portkey to `upstream` (a base URL ending in /v1) as an OpenAI provider. */
export function portkeyHeaders(upstream: string): Record<string, string> {
  return {
    "content-type": "application/json",
    authorization: "Bearer bench-upstream-key",
    "x-portkey-provider": "openai",
    "x-portkey-custom-host": upstream,
  };
}
