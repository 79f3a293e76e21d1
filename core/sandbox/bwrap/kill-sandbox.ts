/**
 * Stopping a running sandbox so that, once bwrap has exited, none of its processes is left. The kill goes to the
 * sandbox's init (bwrap's child, pid 1 of its process namespace): the kernel then kills every process of the
 * namespace and reaps them before init is gone, and bwrap exits only after that. So the slot's next command starts
 * with none of this one's processes counted against its uid's process limit, even after a fork bomb. Killing bwrap
 * itself would leave the namespace to die on its own time, after the slot had been given to the next command.
 *
 * Just after the spawn, bwrap may not have made its child yet (choom, nice, prlimit and setpriv are still exec-ing
 * their way to it): the child is looked for again every RETRY_MS. Only when none shows up within GRACE_MS, or bwrap
 * outlives its child by GRACE_MS, is bwrap itself killed.
 */
import { readFileSync } from "node:fs";

const RETRY_MS = 10;
const GRACE_MS = 2_000;

interface Killable {
  readonly pid: number;
  readonly exitCode: number | null;
  readonly signalCode: unknown;
  kill(signal: "SIGKILL"): void;
}

/** Starts stopping `proc`; the returned function cancels what is still pending (call it once `proc` has exited). */
export function killSandbox(proc: Killable): () => void {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const startedAt = performance.now();
  const attempt = () => {
    // Only while bwrap has not been reaped: its pid (and so its children file) cannot belong to anyone else yet.
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    if (killChildren(proc.pid)) timer = setTimeout(() => proc.kill("SIGKILL"), GRACE_MS);
    else if (performance.now() - startedAt >= GRACE_MS) proc.kill("SIGKILL");
    else timer = setTimeout(attempt, RETRY_MS);
  };
  attempt();
  return () => clearTimeout(timer);
}

/** SIGKILLs the children of `pid`; false when it has none yet (or they cannot be read). */
function killChildren(pid: number): boolean {
  let children: string;
  try {
    // Synchronous (a /proc read: microseconds), so nothing can reap bwrap between the check above and the kill.
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8");
  } catch {
    return false;
  }
  let killed = false;
  for (const child of children.split(" ")) {
    const id = Number(child);
    if (!Number.isInteger(id) || id <= 0) continue;
    try {
      process.kill(id, "SIGKILL");
      killed = true;
    } catch {
      // already gone
    }
  }
  return killed;
}
