/**
 * The sandbox backends' knobs and their defaults. One place so that both backends enforce the same caps: a command
 * must not behave differently (or escape a limit) because the operator switched backends.
 */

export type SandboxBackendName = "just-bash" | "bwrap";

/** What `createSandboxBackend` accepts (the config's `sandbox` section, plus knobs tests and benches turn). */
export interface SandboxSettings {
  backend?: SandboxBackendName;
  /** Bun Workers of the just-bash backend: commands running at once; more wait in a queue. */
  workers?: number;
  /** Per-container quota on the bytes of its files; a command that would pass it is refused or killed. */
  maxFsBytes?: number;
  /** Per-container quota on its files and directories (just-bash refuses the next one; bwrap kills at it). */
  maxFiles?: number;
  /**
   * Memory one command may take. bwrap: RLIMIT_AS of each process. just-bash: how far the gateway's resident memory
   * may grow while commands run before the longest-running one is stopped (workers share the gateway's process).
   */
  maxMemoryBytes?: number;
  /** bwrap: RLIMIT_NPROC, the processes (threads) the sandbox user may have at once: what stops a fork bomb. */
  maxProcesses?: number;
  /** Size of the private, memory-backed /tmp each command gets. */
  tmpBytes?: number;
  /** bwrap: the host uid (and gid) commands run as when the gateway runs as root. */
  sandboxUid?: number;
  sandboxGid?: number;
  /** bwrap: the executable (found on PATH by default). */
  bwrapPath?: string;
}

export type ResolvedSandboxSettings = Required<Omit<SandboxSettings, "backend">> & { backend: SandboxBackendName };

const MIB = 1024 * 1024;

export const SANDBOX_DEFAULTS: ResolvedSandboxSettings = Object.freeze({
  backend: "just-bash",
  workers: 4,
  maxFsBytes: 100 * MIB,
  maxFiles: 10_000,
  // Below 2 GiB on purpose: "allocate 2 GB" must fail, while compilers and interpreters still fit.
  maxMemoryBytes: 1024 * MIB,
  maxProcesses: 256,
  tmpBytes: 64 * MIB,
  // "nobody": owns nothing on a stock system, so a sandbox that got out could not touch anyone's files.
  sandboxUid: 65534,
  sandboxGid: 65534,
  bwrapPath: "bwrap",
} satisfies ResolvedSandboxSettings);

export function resolveSandboxSettings(settings: SandboxSettings): ResolvedSandboxSettings {
  const out: Record<string, unknown> = { ...SANDBOX_DEFAULTS };
  for (const [key, value] of Object.entries(settings)) if (value !== undefined) out[key] = value;
  return out as ResolvedSandboxSettings;
}

/** Where the container's directory appears inside every backend: the cwd and the only writable persistent tree. */
export const SANDBOX_WORKDIR = "/workspace";
