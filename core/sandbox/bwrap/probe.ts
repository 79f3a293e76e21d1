/**
 * Start-up check of the bwrap backend: a real sandbox (every namespace, the limits, the unprivileged uid) that runs
 * `true`, and when the gateway is root the confined chown that hands files to the sandbox user. Hosts that forbid
 * unprivileged user namespaces (kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0, an AppArmor policy,
 * or a container runtime's seccomp profile) fail here, and the gateway falls back to just-bash.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResolvedSandboxSettings } from "../settings.ts";
import { adoptArgv, sandboxArgv } from "./args.ts";
import { inspectHost, type BwrapPlan } from "./host.ts";

const PROBE_TIMEOUT_MS = 10_000;

export type BwrapProbe = { ok: true; plan: BwrapPlan } | { ok: false; reason: string };

async function run(argv: string[]): Promise<string | undefined> {
  const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: { PATH: "/usr/bin:/bin" }, timeout: PROBE_TIMEOUT_MS });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return code === 0 ? undefined : stderr.trim() || `exit ${code ?? proc.signalCode}`;
}

export async function probeBwrap(settings: ResolvedSandboxSettings): Promise<BwrapProbe> {
  const host = inspectHost(settings);
  if (!host.ok) return host;
  const { plan } = host;
  const dir = await mkdtemp(join(tmpdir(), "gateway-sandbox-probe-"));
  let ok = false;
  try {
    if (plan.setpriv) {
      await writeFile(join(dir, "owned-by-root"), "");
      const failed = await run(adoptArgv(plan, dir));
      if (failed) return { ok: false, reason: `cannot hand files to the sandbox uid: ${failed}` };
    }
    const limits = { timeoutMs: PROBE_TIMEOUT_MS, maxMemoryBytes: settings.maxMemoryBytes, maxProcesses: settings.maxProcesses, fileSizeBytes: 0, tmpBytes: settings.tmpBytes };
    const failed = await run(sandboxArgv(plan, dir, "true", limits));
    if (failed) return { ok: false, reason: failed };
    ok = true;
    return { ok: true, plan };
  } catch (error) {
    return { ok: false, reason: error instanceof Error ? error.message : String(error) };
  } finally {
    await rm(dir, { recursive: true, force: true });
    if (!ok) await rm(plan.etcDir, { recursive: true, force: true });
  }
}
