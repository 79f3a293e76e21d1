/**
 * What the container service relies on from every sandbox backend: bash semantics in the container directory, files
 * that persist between commands and on the host, exit codes and stderr, the deadline (timedOut, exitCode null), the
 * output cap, cancellation, and commands running side by side. bwrap is skipped, with its reason, where unusable.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { SandboxBackend } from "../../core/sandbox/backend.ts";
import { BwrapBackend } from "../../core/sandbox/bwrap/backend.ts";
import { probeBwrap } from "../../core/sandbox/bwrap/probe.ts";
import { JustBashBackend } from "../../core/sandbox/just-bash/backend.ts";
import { resolveSandboxSettings } from "../../core/sandbox/settings.ts";

const settings = resolveSandboxSettings({ workers: 2 });
const options = { timeoutMs: 5_000, maxOutputBytes: 10_000 };
const probe = await probeBwrap(settings);
if (!probe.ok) console.log(`[sandbox-backends] bwrap suite skipped: ${probe.reason}`);

/** A bwrap backend with a plan of its own (closing a backend removes its plan's files). */
async function ownBwrap(): Promise<SandboxBackend> {
  const fresh = await probeBwrap(settings);
  if (!fresh.ok) throw new Error(fresh.reason);
  return new BwrapBackend(settings, fresh.plan);
}

const backends = [
  { name: "just-bash", usable: true, make: (): SandboxBackend => new JustBashBackend(settings), makeOwn: async (): Promise<SandboxBackend> => new JustBashBackend(settings) },
  { name: "bwrap", usable: probe.ok, make: (): SandboxBackend => new BwrapBackend(settings, (probe as Extract<typeof probe, { ok: true }>).plan), makeOwn: ownBwrap },
];

for (const { name, usable, make, makeOwn } of backends) {
  describe.skipIf(!usable)(`sandbox backend: ${name}`, () => {
    let backend: SandboxBackend;
    let base: string;
    let root: string;
    beforeAll(() => {
      base = mkdtempSync(join(tmpdir(), `sandbox-backend-${name}-`));
      chmodSync(base, 0o755);
      root = join(base, "files");
      mkdirSync(root);
      backend = make();
    });
    afterAll(async () => {
      await backend.close();
      rmSync(base, { recursive: true, force: true });
    });

    test("runs bash: pipes, exit codes, stderr", async () => {
      expect(await backend.exec(root, "seq 1 1000 | grep 7 | wc -l", options)).toEqual({ stdout: "271\n", stderr: "", exitCode: 0, timedOut: false, truncated: false });
      const failed = await backend.exec(root, "echo out; echo err >&2; exit 3", options);
      expect(failed).toMatchObject({ stdout: "out\n", stderr: "err\n", exitCode: 3, timedOut: false });
    });

    test("the container directory is the cwd, at /workspace; files persist between commands and on the host", async () => {
      expect((await backend.exec(root, "pwd; echo one > a.txt; mkdir -p d; echo two > d/b.txt", options)).stdout).toBe("/workspace\n");
      expect((await backend.exec(root, "cat a.txt d/b.txt; cat /workspace/a.txt", options)).stdout).toBe("one\ntwo\none\n");
      expect(readFileSync(join(root, "d/b.txt"), "utf8")).toBe("two\n");
    });

    test("files the gateway wrote can be read, changed and removed", async () => {
      mkdirSync(join(root, "from-host"));
      writeFileSync(join(root, "from-host/notes.txt"), "host\n");
      const result = await backend.exec(root, "cat from-host/notes.txt; echo more >> from-host/notes.txt; echo new > from-host/new.txt; rm from-host/new.txt; cat from-host/notes.txt", options);
      expect(result).toMatchObject({ stdout: "host\nhost\nmore\n", exitCode: 0 });
    });

    test("a command still running at its deadline is stopped: timedOut, exitCode null; the next one runs", async () => {
      const started = performance.now();
      const result = await backend.exec(root, "echo before; sleep 30", { ...options, timeoutMs: 500 });
      // Killed, not waited for: far sooner than the 30 s sleep (a generous bound, for a busy machine).
      expect(performance.now() - started).toBeLessThan(10_000);
      expect(result).toMatchObject({ timedOut: true, exitCode: null });
      expect((await backend.exec(root, "echo after", options)).stdout).toBe("after\n");
    });

    test("output past maxOutputBytes is cut and flagged", async () => {
      // A generous deadline: just-bash takes seconds for this loop on a busy machine, and the cut is what is tested.
      const result = await backend.exec(root, "for i in $(seq 1 3000); do echo line-$i; done", { ...options, timeoutMs: 30_000, maxOutputBytes: 100 });
      expect(result.truncated).toBe(true);
      const full = Array.from({ length: 3000 }, (_, i) => `line-${i + 1}\n`).join("");
      expect(result.stdout).toBe(full.slice(0, 100));
    }, 40_000);

    test("an aborted signal rejects the call and stops the command", async () => {
      const controller = new AbortController();
      const running = backend.exec(root, "sleep 10; echo late > late.txt", { ...options, signal: controller.signal });
      setTimeout(() => controller.abort(new Error("client went away")), 200);
      await expect(running).rejects.toThrow("client went away");
      await Bun.sleep(300);
      expect((await backend.exec(root, "ls late.txt 2>/dev/null || echo absent", options)).stdout).toBe("absent\n");
    });

    test("commands run side by side, up to the configured workers", async () => {
      // Two containers whose commands each wait for the other to have started: each writes `here`, the test copies
      // that across as `there` into the other container, and each ends once `there` appears. Both end only if both
      // run at the same time (one after the other, the first would wait out its deadline).
      const [one, two] = ["side-1", "side-2"].map((dir) => join(base, dir));
      for (const dir of [one!, two!]) mkdirSync(dir);
      const meet = (mine: string, theirs: string) => `touch ${mine}; while [ ! -e ${theirs} ]; do sleep 0.05; done; echo met`;
      const copying = setInterval(() => {
        for (const [from, to] of [[one!, two!], [two!, one!]] as const) if (existsSync(join(from, "here")) && !existsSync(join(to, "there"))) writeFileSync(join(to, "there"), "");
      }, 20);
      try {
        const results = await Promise.all([backend.exec(one!, meet("here", "there"), options), backend.exec(two!, meet("here", "there"), options)]);
        expect(results.map((r) => r.stdout)).toEqual(["met\n", "met\n"]);
      } finally {
        clearInterval(copying);
      }
    });

    test("closing the backend stops its running command and refuses the waiting ones", async () => {
      const own = await makeOwn();
      const running = [1, 2, 3, 4].map(() => own.exec(root, "sleep 30; echo late", { ...options, timeoutMs: 60_000 }).then((r) => r, (e: Error) => e));
      await Bun.sleep(300);
      await own.close();
      const outcomes = await Promise.all(running);
      // Two ran (the configured workers) and were stopped; the others waited and were refused.
      for (const outcome of outcomes) {
        if (outcome instanceof Error) expect(outcome.message).toBe("sandbox backend is closed");
        else expect(outcome.stdout).not.toContain("late");
      }
      expect(outcomes.filter((o) => o instanceof Error).length).toBeGreaterThanOrEqual(2);
    }, 20_000);

    if (name === "bwrap") {
      test("a container already over its quota: a command slow to remove files is not killed, one that grows it is", async () => {
        const tight = resolveSandboxSettings({ workers: 1, maxFsBytes: 1_000, maxFiles: 50 });
        const fresh = await probeBwrap(tight);
        if (!fresh.ok) throw new Error(fresh.reason);
        const small = new BwrapBackend(tight, fresh.plan);
        const box = join(base, "over-quota");
        mkdirSync(box);
        try {
          writeFileSync(join(box, "big"), "x".repeat(5_000));
          // Over by bytes. Slower than the quota watch's first look (100 ms): it must still be let through.
          const cleanup = await small.exec(box, "sleep 0.5; rm big; echo removed", options);
          expect(cleanup).toMatchObject({ stdout: "removed\n", exitCode: 0 });
          writeFileSync(join(box, "big"), "x".repeat(5_000));
          // Writing bytes is refused (RLIMIT_FSIZE 0), so it grows by files, past the 50 allowed.
          const growing = await small.exec(box, "for i in $(seq 1 2000); do : > f$i; done; sleep 30; echo done", { ...options, timeoutMs: 60_000 });
          expect(growing.stdout).not.toContain("done");
          expect(growing.stderr).toContain("command stopped: the container was over its quota and grew further");
        } finally {
          await small.close();
        }
      }, 40_000);
    }

    if (name === "just-bash") {
      test("a worker killed at the deadline is replaced, never leaked", async () => {
        const pool = backend as JustBashBackend;
        await backend.exec(root, "sleep 30", { ...options, timeoutMs: 200 });
        // One worker per slot: the configured workers plus the spare (core/sandbox/fair-slots.ts).
        expect(pool.workerCount).toBeLessThanOrEqual(settings.workers + 1);
        expect((await backend.exec(root, "echo replaced", options)).stdout).toBe("replaced\n");
      });
    }
  });
}
