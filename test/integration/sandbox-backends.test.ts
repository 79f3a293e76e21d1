/**
 * What the container service relies on from every sandbox backend: bash semantics in the container directory, files
 * that persist between commands and on the host, exit codes and stderr, the deadline (timedOut, exitCode null), the
 * output cap, cancellation, and commands running side by side. bwrap is skipped, with its reason, where unusable.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

const backends = [
  { name: "just-bash", usable: true, make: (): SandboxBackend => new JustBashBackend(settings) },
  { name: "bwrap", usable: probe.ok, make: (): SandboxBackend => new BwrapBackend(settings, (probe as Extract<typeof probe, { ok: true }>).plan) },
];

for (const { name, usable, make } of backends) {
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
      expect(performance.now() - started).toBeLessThan(500 + 1_000);
      expect(result).toMatchObject({ timedOut: true, exitCode: null });
      expect((await backend.exec(root, "echo after", options)).stdout).toBe("after\n");
    });

    test("output past maxOutputBytes is cut and flagged", async () => {
      const result = await backend.exec(root, "for i in $(seq 1 3000); do echo line-$i; done", { ...options, maxOutputBytes: 100 });
      expect(result.truncated).toBe(true);
      const full = Array.from({ length: 3000 }, (_, i) => `line-${i + 1}\n`).join("");
      expect(result.stdout).toBe(full.slice(0, 100));
    });

    test("an aborted signal rejects the call and stops the command", async () => {
      const controller = new AbortController();
      const running = backend.exec(root, "sleep 10; echo late > late.txt", { ...options, signal: controller.signal });
      setTimeout(() => controller.abort(new Error("client went away")), 200);
      await expect(running).rejects.toThrow("client went away");
      await Bun.sleep(300);
      expect((await backend.exec(root, "ls late.txt 2>/dev/null || echo absent", options)).stdout).toBe("absent\n");
    });

    test("commands run side by side, up to the configured workers", async () => {
      const started = performance.now();
      const results = await Promise.all([1, 2].map((n) => backend.exec(root, `sleep 0.5; echo ${n}`, options)));
      expect(results.map((r) => r.stdout)).toEqual(["1\n", "2\n"]);
      expect(performance.now() - started).toBeLessThan(950);
    });

    if (name === "just-bash") {
      test("a worker killed at the deadline is replaced, never leaked", async () => {
        const pool = backend as JustBashBackend;
        await backend.exec(root, "sleep 30", { ...options, timeoutMs: 200 });
        expect(pool.workerCount).toBeLessThanOrEqual(settings.workers);
        expect((await backend.exec(root, "echo replaced", options)).stdout).toBe("replaced\n");
      });
    }
  });
}
