import { describe, expect, test } from "bun:test";
import { adoptArgv, sandboxArgv } from "../../../core/sandbox/bwrap/args.ts";
import type { BwrapPlan } from "../../../core/sandbox/bwrap/host.ts";

const plan: BwrapPlan = {
  bwrap: "/usr/bin/bwrap",
  prlimit: "/usr/bin/prlimit",
  setpriv: "/usr/bin/setpriv",
  choom: "/usr/bin/choom",
  nice: "/usr/bin/nice",
  firstUid: 2_000_000_000,
  gid: 2_000_000_000,
  systemMounts: ["--ro-bind", "/usr", "/usr", "--symlink", "usr/bin", "/bin"],
  etcDir: "/run/etc",
};
const limits = { timeoutMs: 2_500, maxMemoryBytes: 1 << 30, maxProcesses: 64, fileSizeBytes: 1000, tmpBytes: 1 << 20 };
/** Slot 3's identity: its own uid, the shared gid. */
const who = { uid: 2_000_000_003, gid: 2_000_000_000 };
const argv = sandboxArgv(plan, who, "/data/c1/files", "echo hi", limits);
const bwrapArgs = argv.slice(argv.indexOf(plan.bwrap));

/** The value(s) following `flag` each time it occurs. */
function after(flag: string, count = 1): string[][] {
  const found: string[][] = [];
  bwrapArgs.forEach((arg, i) => arg === flag && found.push(bwrapArgs.slice(i + 1, i + 1 + count)));
  return found;
}

describe("bwrap command line", () => {
  test("limits and the slot's unprivileged uid are set before bwrap starts, soft and hard alike", () => {
    const before = argv.slice(0, argv.indexOf(plan.bwrap));
    expect(before).toEqual([
      "/usr/bin/choom", "-n", "1000", "--",
      "/usr/bin/nice", "-n", "19",
      "/usr/bin/prlimit", "--nproc=64:64", `--as=${1 << 30}:${1 << 30}`, "--fsize=1000:1000", "--cpu=4:4", "--nofile=1024:1024", "--core=0:0", "--",
      "/usr/bin/setpriv", "--reuid=2000000003", "--regid=2000000000", "--clear-groups", "--",
    ]);
  });

  test("every namespace unshared, no capabilities, no nested user namespaces, dies with the gateway", () => {
    for (const flag of ["--unshare-all", "--unshare-user", "--disable-userns", "--die-with-parent", "--new-session", "--clearenv"]) expect(bwrapArgs).toContain(flag);
    expect(bwrapArgs).not.toContain("--share-net");
    expect(after("--cap-drop")).toEqual([["ALL"]]);
    expect(after("--cap-add")).toEqual([]);
  });

  test("the container is the only writable bind; the system is read-only; /etc holds no host secret", () => {
    expect(after("--bind", 2)).toEqual([["/data/c1/files", "/workspace"]]);
    const readOnly = after("--ro-bind", 2).concat(after("--ro-bind-try", 2));
    expect(readOnly.map(([, dest]) => dest).sort()).toEqual(["/etc/alternatives", "/etc/group", "/etc/hosts", "/etc/ld.so.cache", "/etc/passwd", "/usr"]);
    expect(readOnly.find(([, dest]) => dest === "/etc/passwd")?.[0]).toBe("/run/etc/passwd");
    expect(bwrapArgs.join(" ")).not.toMatch(/shadow|--bind \/etc|--dev-bind/);
    expect(after("--remount-ro")).toEqual([["/dev"], ["/"]]);
    expect(after("--size", 3)).toContainEqual([String(limits.tmpBytes), "--tmpfs", "/tmp"]);
  });

  test("the command runs by bash in the container, with a minimal environment", () => {
    expect(bwrapArgs.slice(-5)).toEqual(["/bin/bash", "--noprofile", "--norc", "-c", "echo hi"]);
    expect(after("--chdir")).toEqual([["/workspace"]]);
    expect(after("--setenv", 2).map(([name]) => name).sort()).toEqual(["HOME", "LANG", "PATH", "TMPDIR", "USER"]);
  });

  test("without choom and nice, prlimit comes first; setpriv is always there", () => {
    const bare = sandboxArgv({ ...plan, choom: undefined, nice: undefined }, who, "/c", "true", limits);
    expect(bare[0]).toBe(plan.prlimit);
    expect(bare).toContain(plan.setpriv);
  });

  test("adoption is a chown to the slot's uid confined to the container, never following links", () => {
    const adopt = adoptArgv(plan, who, "/data/c1/files");
    expect(adopt.slice(-5)).toEqual(["/usr/bin/chown", "-R", "--no-dereference", "2000000003:2000000000", "/workspace"]);
    expect(adopt.join(" ")).toContain("--bind /data/c1/files /workspace");
    expect(adopt.join(" ")).not.toMatch(/--bind \/(?!data)/);
  });
});
