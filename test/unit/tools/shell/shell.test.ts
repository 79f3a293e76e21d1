/** service:shell: one invocation per command, exit and timeout outcomes, clamped limits, the container's id. */
import { describe, expect, test } from "bun:test";
import shell, { type ShellResult } from "../../../../tools/shell/index.ts";
import { DEFAULT_MAX_OUTPUT_BYTES, DEFAULT_TIMEOUT_MS, MAX_OUTPUT_BYTES, MAX_TIMEOUT_MS } from "../../../../tools/container-kit/exec-limits.ts";
import { containerContext, fakeContainer } from "./fake-container.ts";

const run = (args: Record<string, unknown>, container = fakeContainer(), parameters: Record<string, unknown> = {}) =>
  shell.run(args, containerContext(container, parameters)) as Promise<ShellResult>;

describe("service:shell", () => {
  test("each command runs on its own, in order; a failing one does not stop the next", async () => {
    const container = fakeContainer();
    container.script = (command) => {
      if (command === "false") return { exitCode: 1, stderr: "nope\n" };
      if (command === "sleep 99") return { exitCode: null, timedOut: true, stdout: "partial" };
      return { stdout: `ran ${command}\n` };
    };
    const result = await run({ commands: ["echo a", "false", "sleep 99", "echo b"] }, container);
    expect(container.execs.map((exec) => exec.command)).toEqual(["echo a", "false", "sleep 99", "echo b"]);
    expect(result).toEqual({
      output: [
        { stdout: "ran echo a\n", stderr: "", outcome: { type: "exit", exit_code: 0 } },
        { stdout: "", stderr: "nope\n", outcome: { type: "exit", exit_code: 1 } },
        { stdout: "partial", stderr: "", outcome: { type: "timeout" } },
        { stdout: "ran echo b\n", stderr: "", outcome: { type: "exit", exit_code: 0 } },
      ],
      container_id: "ctr_test123",
    });
  });

  test("limits: defaults, the model's own within the caps, clamped above them", async () => {
    const container = fakeContainer();
    await run({ commands: ["a"] }, container);
    await run({ commands: ["b"], timeout_ms: 1500, max_output_length: 100 }, container);
    await run({ commands: ["c"], timeout_ms: 99_999_999, max_output_length: 99_999_999 }, container);
    expect(container.execs.map(({ options }) => [options.timeoutMs, options.maxOutputBytes])).toEqual([
      [DEFAULT_TIMEOUT_MS, DEFAULT_MAX_OUTPUT_BYTES],
      [1500, 100],
      [MAX_TIMEOUT_MS, MAX_OUTPUT_BYTES],
    ]);
    expect(container.execs[0]!.options.signal).toBeDefined();
  });

  test("cut output says so in stderr, with the cap", async () => {
    const container = fakeContainer();
    container.script = () => ({ stdout: "x".repeat(10), stderr: "warn", truncated: true });
    const { output } = await run({ commands: ["yes"], max_output_length: 10 }, container);
    expect(output[0]!.stderr).toBe("warn\n[output truncated: each stream is capped at 10 bytes]");
  });

  test("the entry's environment and idle timer reach the container service", async () => {
    const container = fakeContainer({}, "sess_abc");
    const result = await run({ commands: ["ls"] }, container, { environment: { type: "container_reference", container_id: "sess_abc" }, sleep_after_seconds: 60 });
    expect(container.requests).toEqual([{ environment: { type: "container_reference", container_id: "sess_abc" }, sleepAfterSeconds: 60 }]);
    expect(result.container_id).toBe("sess_abc");
  });

  test("bad arguments are an error for the model, and no command runs", async () => {
    const container = fakeContainer();
    await expect(run({ commands: [] }, container)).rejects.toThrow("invalid arguments (commands)");
    await expect(run({ commands: ["ls"], cwd: "/" }, container)).rejects.toThrow("invalid arguments (cwd): unknown argument");
    await expect(run({ command: "ls" }, container)).rejects.toThrow("invalid arguments");
    await expect(run({ commands: ["ls"], timeout_ms: 0 }, container)).rejects.toThrow("invalid arguments (timeout_ms)");
    expect(container.execs).toHaveLength(0);
  });

  test("a container the service refuses is the model's error", async () => {
    const ctx = containerContext(fakeContainer(), {}, { container: () => Promise.reject(new Error("unknown container ctr_x")) });
    await expect(shell.run({ commands: ["ls"] }, ctx)).rejects.toThrow("unknown container ctr_x");
  });
});
