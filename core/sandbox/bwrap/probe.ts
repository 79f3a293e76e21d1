/**
 * Start-up check of the bwrap backend: a real sandbox (every namespace, the limits, the unprivileged uid) that runs
 * `true`, and the confined chown that hands files to a slot's uid. Hosts that forbid unprivileged user namespaces
 * (kernel.unprivileged_userns_clone=0, user.max_user_namespaces=0, an AppArmor policy, or a container runtime's
 * seccomp profile) fail here; the reason is what the start-up error (or the fallback's log line) says.
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { slotCapacity } from "../fair-slots.ts";
import type { ResolvedSandboxSettings } from "../settings.ts";
import { adoptArgv, sandboxArgv } from "./args.ts";
import { inspectHost, slotUid, type BwrapPlan } from "./host.ts";

const PROBE_TIMEOUT_MS = 10_000;

export type BwrapProbe = { ok: true; plan: BwrapPlan } | { ok: false; reason: string };

async function run(argv: string[]): Promise<string | undefined> {
  const proc = Bun.spawn(argv, { stdin: "ignore", stdout: "ignore", stderr: "pipe", env: { PATH: "/usr/bin:/bin" }, timeout: PROBE_TIMEOUT_MS });
  const [code, stderr] = await Promise.all([proc.exited, new Response(proc.stderr).text()]);
  return code === 0 ? undefined : stderr.trim() || `exit ${code ?? proc.signalCode}`;
}

export async function probeBwrap(settings: ResolvedSandboxSettings): Promise<BwrapProbe> {
  // Every slot, the spare included, gets a uid.
  const host = inspectHost(settings, slotCapacity(settings.workers));
  if (!host.ok) return host;
  const { plan } = host;
  const who = { uid: slotUid(plan, 0), gid: plan.gid };
  const dir = await mkdtemp(join(tmpdir(), "gateway-sandbox-probe-"));
  let ok = false;
  try {
    await writeFile(join(dir, "owned-by-root"), "");
    const adoptFailed = await run(adoptArgv(plan, who, dir));
    if (adoptFailed) return { ok: false, reason: `cannot hand files to the sandbox uid: ${adoptFailed}` };
    const limits = { timeoutMs: PROBE_TIMEOUT_MS, maxMemoryBytes: settings.maxMemoryBytes, maxProcesses: settings.maxProcesses, fileSizeBytes: 0, tmpBytes: settings.tmpBytes };
    const failed = await run(sandboxArgv(plan, who, dir, "true", limits));
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
