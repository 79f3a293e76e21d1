/**
 * What runs a container's commands, behind one interface (issue 13, "Sandbox backends"): `just-bash` by default, or
 * `bwrap` when the operator opts in and the host allows it. The container service (core/containers) calls `exec`
 * with the container's host directory; the backend makes that directory the command's only writable tree.
 */
import type { Logger } from "pino";
import type { ExecOptions, ExecResult } from "../containers/contract.ts";
import { BwrapBackend } from "./bwrap/backend.ts";
import { probeBwrap } from "./bwrap/probe.ts";
import { JustBashBackend } from "./just-bash/backend.ts";
import { resolveSandboxSettings, type SandboxBackendName, type SandboxSettings } from "./settings.ts";

export { SANDBOX_WORKDIR, type SandboxSettings } from "./settings.ts";

export interface SandboxBackend {
  readonly name: SandboxBackendName;
  /**
   * Runs `command` (bash syntax) with the container's host directory `root` as its only writable tree and cwd (seen
   * inside as SANDBOX_WORKDIR). Never rejects for what the command does (a timeout, a quota, a crash are results);
   * rejects when `options.signal` aborts, or when the backend itself cannot run anything.
   */
  exec(root: string, command: string, options: ExecOptions): Promise<ExecResult>;
  close(): Promise<void>;
}

type SandboxLogger = Pick<Logger, "info" | "warn">;

/**
 * The configured backend. `bwrap` is probed first (a sandbox that runs `true`); when the host forbids it (no
 * bubblewrap, no user namespaces) the gateway falls back to just-bash and says so in one log line.
 */
export async function createSandboxBackend(settings: SandboxSettings, logger: SandboxLogger): Promise<SandboxBackend> {
  const resolved = resolveSandboxSettings(settings);
  if (resolved.backend === "bwrap") {
    const probe = await probeBwrap(resolved);
    if (probe.ok) {
      logger.info({ sandbox: "bwrap", uid: probe.plan.hostUid }, "sandbox backend ready");
      return new BwrapBackend(resolved, probe.plan);
    }
    logger.warn({ sandbox: "just-bash", reason: probe.reason }, "bwrap sandbox unusable on this host; falling back to just-bash");
  }
  return new JustBashBackend(resolved);
}
