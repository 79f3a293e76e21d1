/**
 * A batch worker's id names the process that holds its claims: `<random id>~<pid>@<place>`, where the place is the
 * host name and (on Linux) the PID namespace. Another worker in the same place can then tell at once that the holder
 * of a claim no longer exists, and take its requests back without waiting for the lease (hardening issue: "batches
 * resume at once after a crash"). Holders elsewhere, or whose id says nothing, are only ever judged by their lease.
 */
import { readlinkSync } from "node:fs";
import { hostname } from "node:os";

/** Where this process runs: two processes with the same place see each other's PIDs. */
function placeOf(): string {
  let namespace = "";
  try {
    // Containers on one host may share a host name but not a PID namespace.
    namespace = readlinkSync("/proc/self/ns/pid").replace(/\D/g, "");
  } catch {
    // Not Linux: the host name alone.
  }
  return `${hostname()}${namespace ? `/${namespace}` : ""}`.replace(/[~@]/g, "_");
}

const PLACE = placeOf();

/** This process's worker id, from a unique `base` (e.g. `worker-0193…`). */
export function workerIdOf(base: string): string {
  return `${base}~${process.pid}@${PLACE}`;
}

/**
 * True only when `workerId` names a process in this place that is gone (its PID no longer exists). A live PID —
 * even one reused by another program — or an id from elsewhere is never called gone: its claims wait for the lease.
 */
export function isGoneHere(workerId: string, isAlive: (pid: number) => boolean = pidExists): boolean {
  const match = /~(\d+)@([^@]*)$/.exec(workerId);
  if (!match || match[2] !== PLACE) return false;
  const pid = Number(match[1]);
  return pid !== process.pid && !isAlive(pid);
}

function pidExists(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but is not ours to signal.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}
