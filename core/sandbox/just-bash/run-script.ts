/**
 * One command in just-bash: the container directory mounted read-write at SANDBOX_WORKDIR behind the quota wrapper,
 * a small in-memory /tmp, nothing else (no host files, no network: `network` is never passed, so curl does not
 * exist). A fresh Bash per command: shell state never leaks between commands, and they cost ~1 ms to make.
 */
import { Bash, InMemoryFs, MountableFs, ReadWriteFs } from "just-bash";
import { capText } from "../output-cap.ts";
import { SANDBOX_WORKDIR } from "../settings.ts";
import type { JobRequest, JobResult } from "./protocol.ts";
import { QuotaFs } from "./quota-fs.ts";

/** just-bash's exit code when its own deadline stopped the script. */
const DEADLINE_EXIT = 124;
/** Floor of just-bash's own output limit: redirections count against it too, so it must fit ordinary file writes. */
const MIN_INTERNAL_OUTPUT = 32 * 1024 * 1024;

export async function runScript(job: JobRequest): Promise<JobResult> {
  const { limits } = job;
  const tmp = new InMemoryFs(undefined, { maxTotalBytes: limits.tmpBytes });
  await tmp.mkdir("/tmp");
  const workspace = new QuotaFs(
    // Symbolic links stay refused (the default): none can point out of the container, nor be followed if planted.
    new ReadWriteFs({ root: job.root, maxFileReadSize: limits.maxFsBytes }),
    job.root,
    limits.maxFsBytes,
    limits.maxFiles,
  );
  const bash = new Bash({
    fs: new MountableFs({ base: tmp, mounts: [{ mountPoint: SANDBOX_WORKDIR, filesystem: workspace }] }),
    cwd: SANDBOX_WORKDIR,
    env: { HOME: SANDBOX_WORKDIR, PATH: "/usr/bin:/bin", TMPDIR: "/tmp" },
    // Its JS-realm hardening patches Node's module loader, which Bun lacks ("critical patches failed"); the worker
    // is the isolation boundary here instead.
    defenseInDepth: false,
    executionLimits: {
      maxExecutionTimeMs: limits.timeoutMs,
      maxOutputSize: Math.max(MIN_INTERNAL_OUTPUT, 2 * limits.maxOutputBytes),
      maxFileSystemBytes: limits.tmpBytes,
    },
  });
  const started = performance.now();
  const result = await bash.exec(job.command);
  const stdout = capText(result.stdout, limits.maxOutputBytes);
  const stderr = capText(result.stderr, limits.maxOutputBytes);
  return {
    type: "result",
    id: job.id,
    stdout: stdout.text,
    stderr: stderr.text,
    exitCode: result.exitCode,
    truncated: stdout.truncated || stderr.truncated || /total output size exceeded/.test(result.stderr),
    timedOut: result.exitCode === DEADLINE_EXIT && performance.now() - started >= limits.timeoutMs,
  };
}
