/**
 * TEST ONLY: a "sandbox" backend that runs commands with the host's bash in the container's directory, with no
 * isolation at all. It lets container tests make files, directories and symlinks the way a command would, without
 * depending on a real backend (core/sandbox has its own tests).
 */
import type { ExecOptions, ExecResult } from "../../core/containers/contract.ts";

export function hostBashSandbox() {
  return {
    async exec(root: string, command: string, options: ExecOptions): Promise<ExecResult> {
      const child = Bun.spawn(["bash", "-c", command], { cwd: root, stdout: "pipe", stderr: "pipe", timeout: options.timeoutMs });
      const [stdout, stderr, exitCode] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
      return { stdout, stderr, exitCode, timedOut: child.signalCode !== null, truncated: false };
    },
    async close() {},
  };
}

export const EXEC = { timeoutMs: 10_000, maxOutputBytes: 1_000_000 };
