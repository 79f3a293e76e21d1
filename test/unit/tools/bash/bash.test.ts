/** service:bash: command or commands as one script, restart, timeouts as exit 124, the container id in every result. */
import { describe, expect, test } from "bun:test";
import bash, { type BashResult } from "../../../../tools/bash/index.ts";
import { containerContext, fakeContainer, type FakeContainer } from "../shell/fake-container.ts";

const run = (args: Record<string, unknown>, container: FakeContainer = fakeContainer(), parameters: Record<string, unknown> = {}) =>
  bash.run(args, containerContext(container, parameters)) as Promise<BashResult>;

describe("service:bash", () => {
  test("a command's output, exit code and container id", async () => {
    const container = fakeContainer({}, "ctr_9f8e");
    container.script = (command) => (command === "ls missing" ? { stderr: "ls: missing: No such file\n", exitCode: 2 } : {});
    expect(await run({ command: "ls missing" }, container)).toEqual({
      command: "ls missing",
      stdout: "",
      stderr: "ls: missing: No such file\n",
      exitCode: 2,
      container_id: "ctr_9f8e",
    });
  });

  test("commands run as one script, one per line, in a single invocation", async () => {
    const container = fakeContainer();
    container.script = (script) => ({ stdout: script.split("\n").map((line) => `> ${line}`).join("\n") });
    const result = await run({ commands: ["mkdir out", "echo hi > out/a.txt", "cat out/a.txt"] }, container);
    expect(container.execs).toHaveLength(1);
    expect(result.command).toBe("mkdir out\necho hi > out/a.txt\ncat out/a.txt");
    expect(result.stdout).toBe("> mkdir out\n> echo hi > out/a.txt\n> cat out/a.txt");
  });

  test("a timed-out command exits 124 and stderr says it was killed", async () => {
    const container = fakeContainer();
    container.script = () => ({ stdout: "tick\n", exitCode: null, timedOut: true });
    const result = await run({ command: "while true; do echo tick; sleep 1; done", timeout_ms: 2000 }, container);
    expect(result.exitCode).toBe(124);
    expect(result.stdout).toBe("tick\n");
    expect(result.stderr).toBe("[command timed out after 2000 ms and was killed]");
    expect(container.execs[0]!.options.timeoutMs).toBe(2000);
  });

  test("restart asks for a fresh container; alone it runs nothing and reports the new id", async () => {
    const container = fakeContainer({}, "sess_abc-r1x2");
    const result = await run({ restart: true }, container, { sleep_after_seconds: 120 });
    expect(container.requests).toEqual([{ sleepAfterSeconds: 120, restart: true }]);
    expect(container.execs).toHaveLength(0);
    expect(result).toEqual({ command: "", stdout: "", stderr: "", exitCode: 0, container_id: "sess_abc-r1x2" });
    await run({ restart: true, command: "pwd" }, container);
    expect(container.requests[1]).toEqual({ restart: true });
    expect(container.execs.map((exec) => exec.command)).toEqual(["pwd"]);
  });

  test("without restart the request has no restart flag", async () => {
    const container = fakeContainer();
    await run({ command: "true" }, container, { environment: { type: "container_auto" } });
    expect(container.requests).toEqual([{ environment: { type: "container_auto" } }]);
  });

  test("missing, empty or doubled commands and unknown arguments are errors for the model; nothing runs", async () => {
    const container = fakeContainer();
    await expect(run({}, container)).rejects.toThrow("command is required");
    await expect(run({ command: "   " }, container)).rejects.toThrow("command is required");
    await expect(run({ command: "ls", commands: ["ls"] }, container)).rejects.toThrow("not both");
    await expect(run({ command: "ls", sudo: true }, container)).rejects.toThrow("invalid arguments (sudo): unknown argument");
    await expect(run({ command: 42 }, container)).rejects.toThrow("invalid arguments (command)");
    expect(container.requests).toHaveLength(0);
    expect(container.execs).toHaveLength(0);
  });
});
