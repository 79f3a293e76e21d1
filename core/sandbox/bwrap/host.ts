/**
 * What the bwrap backend needs from the host, found once at start-up: the helper binaries, the host uids commands run
 * as, how the system directories are laid out (merged /usr: /bin is a link), and a synthetic /etc/passwd.
 *
 * Host uids: bubblewrap maps the sandbox's user onto the uid that started it. Started by root, that is uid 0 outside:
 * files the sandbox could see owned by root (/etc/shadow is root-readable) would be readable through the owner bits.
 * So the gateway drops to an unprivileged uid (setpriv) before bwrap, and commands own nothing else.
 *
 * One uid per slot: RLIMIT_NPROC counts the processes of a uid, so commands sharing a uid share one count, and a fork
 * bomb in one container would make every other container's next command fail to start. Slot i runs as
 * `firstUid + i`, so each running command has the whole limit to itself. Changing uids takes root: a gateway not
 * running as root cannot give commands a process limit of their own, and the backend refuses to start.
 */
import { chmodSync, existsSync, lstatSync, mkdtempSync, readlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ResolvedSandboxSettings } from "../settings.ts";

/** The uid and gid commands see inside (what `id` prints); they map to the slot's uid and the plan's gid outside. */
export const INNER_UID = 1000;
export const INNER_GID = 1000;

export interface BwrapPlan {
  bwrap: string;
  prlimit: string;
  /** Drops to the slot's uid before bwrap. */
  setpriv: string;
  /** Present when available: marks sandbox processes as the kernel's first choice when memory runs out. */
  choom: string | undefined;
  /** Present when available: runs sandbox processes at the lowest CPU priority, so a busy command never starves the gateway. */
  nice: string | undefined;
  /** Slot i runs as host uid `firstUid + i` (slotUid). */
  firstUid: number;
  /** The host gid of every slot. */
  gid: number;
  /** bwrap arguments that mount /usr and recreate /bin, /lib… as on the host (links or read-only binds). */
  systemMounts: string[];
  /** A directory holding the sandbox's passwd and group files. */
  etcDir: string;
}

/** Top-level system directories a shell may need; each is a link into /usr on merged-/usr hosts. */
const SYSTEM_DIRS = ["/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"];

function systemMounts(): string[] {
  const args = ["--ro-bind", "/usr", "/usr"];
  for (const dir of SYSTEM_DIRS) {
    if (!existsSync(dir)) continue;
    if (lstatSync(dir).isSymbolicLink()) args.push("--symlink", readlinkSync(dir), dir);
    else args.push("--ro-bind", dir, dir);
  }
  return args;
}

/** passwd and group naming only the sandbox user: `whoami` and `ls -l` work, and no host account is listed. */
function writeEtc(): string {
  const dir = mkdtempSync(join(tmpdir(), "gateway-sandbox-etc-"));
  writeFileSync(join(dir, "passwd"), `sandbox:x:${INNER_UID}:${INNER_GID}:sandbox:/workspace:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n`);
  writeFileSync(join(dir, "group"), `sandbox:x:${INNER_GID}:\nnogroup:x:65534:\n`);
  writeFileSync(join(dir, "hosts"), "127.0.0.1 localhost sandbox\n::1 localhost\n");
  // Readable by the unprivileged uid that bwrap runs as.
  chmodSync(dir, 0o755);
  for (const name of ["passwd", "group", "hosts"]) chmodSync(join(dir, name), 0o644);
  return dir;
}

/** The host uid slot `index` runs as. */
export function slotUid(plan: BwrapPlan, index: number): number {
  return plan.firstUid + index;
}

/** The highest uid Linux gives out ((uid_t)-1 means "no change"). */
const MAX_UID = 4_294_967_294;

export type HostCheck = { ok: true; plan: BwrapPlan } | { ok: false; reason: string };

/** `slots`: how many commands may run at once (each gets a uid of its own). */
export function inspectHost(settings: ResolvedSandboxSettings, slots: number): HostCheck {
  if (process.platform !== "linux") return { ok: false, reason: `bubblewrap needs Linux (this is ${process.platform})` };
  const bwrap = Bun.which(settings.bwrapPath);
  if (!bwrap) return { ok: false, reason: `${settings.bwrapPath} not found on PATH (install the bubblewrap package)` };
  const prlimit = Bun.which("prlimit");
  if (!prlimit) return { ok: false, reason: "prlimit not found (util-linux): resource limits could not be set" };
  const uid = process.getuid?.();
  if (uid !== 0) {
    return {
      ok: false,
      reason: `the gateway runs as uid ${uid}, not root: bwrap runs each command as a uid of its own so that one container's fork bomb cannot stop another's commands (a shared process limit), and changing uids takes root`,
    };
  }
  const setpriv = Bun.which("setpriv");
  if (!setpriv) return { ok: false, reason: "setpriv (util-linux) not found: cannot drop to an unprivileged uid" };
  const last = settings.firstUid + slots - 1;
  if (!Number.isInteger(settings.firstUid) || settings.firstUid < 1 || last > MAX_UID) {
    return { ok: false, reason: `sandbox uids ${settings.firstUid}–${last} (one per slot) are not all valid uids (1–${MAX_UID})` };
  }
  return {
    ok: true,
    plan: {
      bwrap,
      prlimit,
      setpriv,
      choom: Bun.which("choom") ?? undefined,
      nice: Bun.which("nice") ?? undefined,
      firstUid: settings.firstUid,
      gid: settings.firstUid,
      systemMounts: systemMounts(),
      etcDir: writeEtc(),
    },
  };
}
