/**
 * What runs a container's commands, behind one interface (README "Containers", Sandboxes): `just-bash` by default,
 * or `bwrap` when the operator opts in and the host allows it. The container service (core/containers) calls `exec`
 * with the container's host directory; the backend makes that directory the command's only writable tree.
 */
import type { Logger } from "pino";
import { ConfigError } from "../config/load.ts";
import type { ExecResult, SandboxExecOptions } from "../containers/contract.ts";
import { BwrapBackend } from "./bwrap/backend.ts";
import { probeBwrap } from "./bwrap/probe.ts";
import { JustBashBackend } from "./just-bash/backend.ts";
import { resolveSandboxSettings, type SandboxBackendName, type SandboxSettings } from "./settings.ts";

export { SandboxBusyError } from "./fair-slots.ts";
export { SANDBOX_WORKDIR, type SandboxSettings } from "./settings.ts";

export interface SandboxBackend {
  readonly name: SandboxBackendName;
  /**
   * Runs `command` (bash syntax) with the container's host directory `root` as its only writable tree and cwd (seen
   * inside as SANDBOX_WORKDIR), once a slot is free for `options.workspace`. Never rejects for what the command does
   * (a timeout, a quota, a crash are results); rejects when `options.signal` aborts, with SandboxBusyError when no
   * slot came within `sandbox.queue_timeout_ms`, or when the backend itself cannot run anything.
   */
  exec(root: string, command: string, options: SandboxExecOptions): Promise<ExecResult>;
  close(): Promise<void>;
}

type SandboxLogger = Pick<Logger, "info" | "warn">;

/**
 * The configured backend. `bwrap` is probed first (a sandbox that runs `true`); when the host forbids it (no
 * bubblewrap, no user namespaces, not root) start-up fails saying why: an operator who asked for OS isolation must
 * not silently get the simulated shell. With `allowFallback` the gateway runs just-bash instead, in one log line.
 */
export async function createSandboxBackend(settings: SandboxSettings, logger: SandboxLogger): Promise<SandboxBackend> {
  const resolved = resolveSandboxSettings(settings);
  if (resolved.backend === "bwrap") {
    const probe = await probeBwrap(resolved);
    if (probe.ok) {
      const backend = new BwrapBackend(resolved, probe.plan);
      logger.info({ sandbox: "bwrap", uids: `${backend.uids[0]}-${backend.uids.at(-1)}` }, "sandbox backend ready");
      return backend;
    }
    if (!resolved.allowFallback) {
      throw new ConfigError(
        `sandbox.backend is "bwrap" but bubblewrap cannot run on this host: ${probe.reason}. Fix the host, or set sandbox.allow_fallback to true to run commands in just-bash instead`,
      );
    }
    logger.warn({ sandbox: "just-bash", reason: probe.reason }, "bwrap sandbox unusable on this host; falling back to just-bash (sandbox.allow_fallback)");
  }
  return new JustBashBackend(resolved);
}
