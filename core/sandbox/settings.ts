/**
 * The sandbox backends' knobs and their defaults. One place so that both backends enforce the same caps: a command
 * must not behave differently (or escape a limit) because the operator switched backends.
 */

export type SandboxBackendName = "just-bash" | "bwrap";

/** What `createSandboxBackend` accepts (the config's `sandbox` section, plus knobs tests and benches turn). */
export interface SandboxSettings {
  backend?: SandboxBackendName;
  /**
   * Commands running at once, all workspaces together (one workspace alone may use them all), plus one spare for a
   * workspace with none running (fair-slots.ts). More wait in a queue per workspace. just-bash: its Bun Workers.
   */
  workers?: number;
  /** How long a command may wait for a slot before it is refused (a tool error naming `sandbox.queue_timeout_ms`). */
  queueTimeoutMs?: number;
  /**
   * A `bwrap` backend that cannot run on this host: false (the default) makes that a start-up error; true runs
   * commands in just-bash instead, with one log line saying why.
   */
  allowFallback?: boolean;
  /** Per-container quota on the bytes of its files; a command that would pass it is refused or killed. */
  maxFsBytes?: number;
  /** Per-container quota on its files and directories (just-bash refuses the next one; bwrap kills at it). */
  maxFiles?: number;
  /**
   * Memory one command may take. bwrap: RLIMIT_AS of each process. just-bash: how far the gateway's resident memory
   * may grow while commands run before the longest-running one is stopped (workers share the gateway's process).
   */
  maxMemoryBytes?: number;
  /**
   * bwrap: RLIMIT_NPROC, the processes (threads) one command may have at once: what stops a fork bomb. Each slot runs
   * as a uid of its own, so the count is per command and one command's bomb cannot starve another's.
   */
  maxProcesses?: number;
  /** Size of the private, memory-backed /tmp each command gets. */
  tmpBytes?: number;
  /**
   * bwrap: slot i's commands run as host uid `firstUid + i` (i from 0 to `workers`, the spare last), all with gid
   * `firstUid`. The range must own nothing and run nothing else on the host.
   */
  firstUid?: number;
  /** bwrap: the executable (found on PATH by default). */
  bwrapPath?: string;
}

export type ResolvedSandboxSettings = Required<Omit<SandboxSettings, "backend">> & { backend: SandboxBackendName };

const MIB = 1024 * 1024;

/** How long a command waits for a free slot by default (`sandbox.queue_timeout_ms`). */
export const DEFAULT_QUEUE_TIMEOUT_MS = 30_000;

export const SANDBOX_DEFAULTS: ResolvedSandboxSettings = Object.freeze({
  backend: "just-bash",
  workers: 4,
  queueTimeoutMs: DEFAULT_QUEUE_TIMEOUT_MS,
  allowFallback: false,
  maxFsBytes: 100 * MIB,
  maxFiles: 10_000,
  // Below 2 GiB on purpose: "allocate 2 GB" must fail, while compilers and interpreters still fit.
  maxMemoryBytes: 1024 * MIB,
  maxProcesses: 256,
  tmpBytes: 64 * MIB,
  // Inside the range systemd leaves unused (1879048192–2147483647): owns nothing on a stock system, so a sandbox that
  // got out could not touch anyone's files, and no host daemon shares its process count.
  firstUid: 2_000_000_000,
  bwrapPath: "bwrap",
} satisfies ResolvedSandboxSettings);

export function resolveSandboxSettings(settings: SandboxSettings): ResolvedSandboxSettings {
  const out: Record<string, unknown> = { ...SANDBOX_DEFAULTS };
  for (const [key, value] of Object.entries(settings)) if (value !== undefined) out[key] = value;
  return out as ResolvedSandboxSettings;
}

/** Where the container's directory appears inside every backend: the cwd and the only writable persistent tree. */
export const SANDBOX_WORKDIR = "/workspace";
