/**
 * `bun server.ts` as a child process whose log lines a test can wait for (the outage and start-order tests read
 * what an operator would: the waiting lines, the listening line, one line on exit).
 */
import type { Subprocess } from "bun";
import { resolve } from "node:path";

export interface GatewayChild {
  child: Subprocess<"ignore", "pipe", "pipe">;
  /** Every stdout line so far (pino JSON lines, and the first-start key banner). */
  lines: string[];
  /** Everything written to stderr so far. */
  stderr(): string;
  /** Resolves with the first line (seen or to come) matching `pattern`; rejects after `timeoutMs` or on exit. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  /** The API base URL, from the first line that names one. */
  base(timeoutMs?: number): Promise<string>;
  kill(): Promise<void>;
}

const root = resolve(import.meta.dir, "../..");

export function spawnGatewayChild(env: Record<string, string>): GatewayChild {
  const child = Bun.spawn(["bun", "server.ts"], {
    cwd: root,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "info", REDIS_URL: "", ...env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
  });
  const lines: string[] = [];
  let errText = "";
  const decoder = new TextDecoder();
  const drain = async (stream: ReadableStream<Uint8Array>, onText: (text: string) => void) => {
    for await (const chunk of stream) onText(decoder.decode(chunk, { stream: true }));
  };
  let partial = "";
  void drain(child.stdout, (text) => {
    const parts = (partial + text).split("\n");
    partial = parts.pop() ?? "";
    lines.push(...parts);
  }).catch(() => undefined);
  void drain(child.stderr, (text) => (errText += text)).catch(() => undefined);

  async function waitForLine(pattern: RegExp, timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = lines.find((line) => pattern.test(line));
      if (hit) return hit;
      if (child.exitCode !== null) throw new Error(`gateway exited (${child.exitCode}) before ${pattern}:\n${lines.join("\n")}\n${errText}`);
      if (Date.now() > deadline) throw new Error(`no line ${pattern} within ${timeoutMs} ms:\n${lines.join("\n")}\n${errText}`);
      await Bun.sleep(20);
    }
  }

  return {
    child,
    lines,
    stderr: () => errText,
    waitForLine,
    async base(timeoutMs) {
      const line = await waitForLine(/"url":"http:\/\/127\.0\.0\.1:\d+\/api\/v1"/, timeoutMs);
      return /"url":"(http:\/\/127\.0\.0\.1:\d+\/api\/v1)"/.exec(line)![1]!;
    },
    async kill() {
      if (child.exitCode === null) child.kill("SIGKILL");
      await child.exited;
    },
  };
}
