/**
 * just-bash workers run at nice 19 (Linux keeps nice per thread), so a spinning script only gets CPU the gateway's
 * event loop leaves idle; the gateway's own thread keeps its priority.
 */
import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { JustBashBackend } from "../../../core/sandbox/just-bash/backend.ts";
import { resolveSandboxSettings } from "../../../core/sandbox/settings.ts";

/** The nice value of each thread of this process (field 19 of /proc/<pid>/task/<tid>/stat). */
function niceByThread(): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync("/proc/self/task")) {
    try {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, "utf8");
      out.set(Number(tid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[16]));
    } catch {
      // The thread ended meanwhile.
    }
  }
  return out;
}

describe.skipIf(process.platform !== "linux")("just-bash worker priority", () => {
  test("a worker thread runs at nice 19; the gateway's main thread does not change", async () => {
    const root = mkdtempSync(join(tmpdir(), "thread-priority-"));
    const backend = new JustBashBackend(resolveSandboxSettings({ workers: 1 }));
    try {
      const before = niceByThread();
      const result = await backend.exec(root, "echo hi", { timeoutMs: 5_000, maxOutputBytes: 1024 });
      expect(result.stdout).toBe("hi\n");
      const after = niceByThread();
      const lowered = [...after].filter(([tid, nice]) => nice === 19 && before.get(tid) !== 19).map(([tid]) => tid);
      // The worker's thread, and the helper threads it starts, which inherit its priority; none of the gateway's.
      expect(lowered.length).toBeGreaterThan(0);
      for (const tid of lowered) expect(before.has(tid)).toBe(false);
      expect(after.get(process.pid)).toBe(before.get(process.pid)!);
      expect(after.get(process.pid)).not.toBe(19);
    } finally {
      await backend.close();
      rmSync(root, { recursive: true, force: true });
    }
  });
});
