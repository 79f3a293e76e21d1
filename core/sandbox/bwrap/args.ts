/**
 * The command lines of the bwrap backend, as pure functions of the host plan and the limits (unit-tested argument by
 * argument: each one is a wall of the sandbox).
 */
import { join } from "node:path";
import { SANDBOX_WORKDIR } from "../settings.ts";
import { INNER_GID, INNER_UID, type BwrapPlan } from "./host.ts";

/** Who a command runs as on the host: its slot's uid (host.ts) and the plan's gid. */
export interface HostIdentity {
  uid: number;
  gid: number;
}

export interface RunLimits {
  timeoutMs: number;
  /** RLIMIT_AS of every process. */
  maxMemoryBytes: number;
  /** RLIMIT_NPROC of the slot's uid: the command's processes, since no other command runs as that uid meanwhile. */
  maxProcesses: number;
  /** RLIMIT_FSIZE: no single file may grow past what the container's quota has left (0: only reads and removals). */
  fileSizeBytes: number;
  tmpBytes: number;
}

/** /dev/shm is memory: a sliver, enough for the semaphores some programs open there. */
const SHM_BYTES = 1024 * 1024;
/** Open files per process: plenty for builds, a ceiling for descriptor exhaustion. */
const MAX_OPEN_FILES = 1024;

/** `[choom] [nice] prlimit setpriv`: limits and the unprivileged uid set before bwrap, so they bind everything in it. */
function launcher(plan: BwrapPlan, who: HostIdentity, limits: RunLimits): string[] {
  const cpuSeconds = Math.ceil(limits.timeoutMs / 1000) + 1;
  const both = (value: number) => `${value}:${value}`; // soft and hard: the sandbox cannot raise either
  const argv: string[] = [];
  // The first victim if memory runs out is a sandbox process, never the gateway.
  if (plan.choom) argv.push(plan.choom, "-n", "1000", "--");
  // The gateway's event loop wins every contest for a core: a fork bomb or a spinning loop only gets what is idle.
  if (plan.nice) argv.push(plan.nice, "-n", "19");
  argv.push(
    plan.prlimit,
    `--nproc=${both(limits.maxProcesses)}`,
    `--as=${both(limits.maxMemoryBytes)}`,
    `--fsize=${both(limits.fileSizeBytes)}`,
    `--cpu=${both(cpuSeconds)}`,
    `--nofile=${both(MAX_OPEN_FILES)}`,
    "--core=0:0",
    "--",
  );
  argv.push(plan.setpriv, `--reuid=${who.uid}`, `--regid=${who.gid}`, "--clear-groups", "--");
  return argv;
}

/** Runs `command` with bash in the sandbox: `root` read-write at SANDBOX_WORKDIR, the system read-only, nothing else. */
export function sandboxArgv(plan: BwrapPlan, who: HostIdentity, root: string, command: string, limits: RunLimits): string[] {
  return [
    ...launcher(plan, who, limits),
    plan.bwrap,
    // Every namespace: no network (only a private loopback), no view of host processes, IPC or hostname.
    "--unshare-all",
    "--unshare-user",
    // Nested user namespaces would give the command a fresh set of capabilities to attack the kernel with.
    "--disable-userns",
    "--die-with-parent",
    // A new session: the command cannot push input into the gateway's terminal (TIOCSTI).
    "--new-session",
    "--cap-drop",
    "ALL",
    "--uid",
    String(INNER_UID),
    "--gid",
    String(INNER_GID),
    "--hostname",
    "sandbox",
    ...plan.systemMounts,
    // /etc: only what programs need to start; no shadow, no host accounts, no credentials.
    "--ro-bind",
    join(plan.etcDir, "passwd"),
    "/etc/passwd",
    "--ro-bind",
    join(plan.etcDir, "group"),
    "/etc/group",
    "--ro-bind",
    join(plan.etcDir, "hosts"),
    "/etc/hosts",
    "--ro-bind-try",
    "/etc/alternatives",
    "/etc/alternatives",
    "--ro-bind-try",
    "/etc/ld.so.cache",
    "/etc/ld.so.cache",
    // A /proc of the sandbox's own processes, a minimal /dev (null, zero, random, tty…).
    "--proc",
    "/proc",
    "--dev",
    "/dev",
    "--size",
    String(SHM_BYTES),
    "--tmpfs",
    "/dev/shm",
    "--size",
    String(limits.tmpBytes),
    "--tmpfs",
    "/tmp",
    "--bind",
    root,
    SANDBOX_WORKDIR,
    // The root and /dev are memory-backed and writable by the sandbox user: frozen, or a script could fill RAM there.
    "--remount-ro",
    "/dev",
    "--remount-ro",
    "/",
    "--chdir",
    SANDBOX_WORKDIR,
    "--clearenv",
    "--setenv",
    "PATH",
    "/usr/local/bin:/usr/bin:/bin",
    "--setenv",
    "HOME",
    SANDBOX_WORKDIR,
    "--setenv",
    "TMPDIR",
    "/tmp",
    "--setenv",
    "USER",
    "sandbox",
    "--setenv",
    "LANG",
    "C.UTF-8",
    "--",
    "/bin/bash",
    "--noprofile",
    "--norc",
    "-c",
    command,
  ];
}

/**
 * Gives the slot's uid the container's files that someone else created (the container service, running as root, or
 * a command of another slot), so commands can change them. Run as root but confined to the container: chown sees only SANDBOX_WORKDIR and a
 * read-only /usr, so a symbolic link a command planted cannot turn it onto a host file.
 */
export function adoptArgv(plan: BwrapPlan, who: HostIdentity, root: string): string[] {
  return [
    plan.bwrap,
    // No user namespace here: the capabilities below must be the host's to change ownership.
    "--unshare-pid",
    "--unshare-net",
    "--unshare-ipc",
    "--unshare-uts",
    "--die-with-parent",
    "--new-session",
    "--cap-drop",
    "ALL",
    "--cap-add",
    "CAP_CHOWN",
    "--cap-add",
    "CAP_DAC_OVERRIDE",
    "--cap-add",
    "CAP_DAC_READ_SEARCH",
    "--cap-add",
    "CAP_FOWNER",
    ...plan.systemMounts,
    "--bind",
    root,
    SANDBOX_WORKDIR,
    "--clearenv",
    "--",
    "/usr/bin/chown",
    "-R",
    "--no-dereference",
    `${who.uid}:${who.gid}`,
    SANDBOX_WORKDIR,
  ];
}
