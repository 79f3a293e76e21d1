/**
 * What runs a container's commands, behind one interface (README "Containers", Sandboxes): `just-bash` by default,
 * or `bwrap` when the operator opts in and the host allows it. The container service (core/containers) calls `exec`
 * with the container's host directory; the backend makes that directory the command's only writable tree. The
 * factory that picks one is ./create-backend.ts, so the backends can import this interface without a circle.
 */
import type { ExecResult, SandboxExecOptions } from "../containers/contract.ts";
import type { SandboxBackendName } from "./settings.ts";

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
