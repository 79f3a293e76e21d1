/**
 * The server children of `npm run bench` (bench/run.ts): each runs in a process of its own, announces its port on
 * stdout (bench/child.ts, or bench/portkey-child.mjs for Node), answers `gc` over IPC, and has its output kept for
 * the report when something fails. A child can be pinned to one core with `taskset` (the servers under test are: the
 * same core for each, so their figures compare).
 */
import type { ChildReply } from "./child.ts";

export interface Child {
  name: string;
  proc: ReturnType<typeof Bun.spawn>;
  pid: number;
  port: number;
  info: Record<string, unknown>;
  /** Asks the child to collect garbage; resolves with its memoryUsage(). */
  gc(): Promise<ChildReply>;
  /** Sends `message` over IPC; resolves with the child's next message (one question at a time). */
  ask(message: string, timeoutMs?: number): Promise<unknown>;
  output(): string;
}

export interface SpawnOptions {
  /** The command line (bench/run.ts puts `taskset` in front of the servers under test). */
  command: string[];
  cwd: string;
  env: Record<string, string>;
  /** `json` for a Node child (Bun's default IPC serialization is Bun's own). */
  serialization?: "json" | "advanced";
  startTimeoutMs?: number;
}

/** `taskset -c <cores>` in front of `command` when taskset exists and `cores` is set, else the command as is. */
export function pinned(command: string[], cores: string | undefined): string[] {
  if (!cores || !Bun.which("taskset")) return command;
  return ["taskset", "-c", cores, ...command];
}

export async function spawnChild(name: string, options: SpawnOptions): Promise<Child> {
  const waiting: Array<(reply: unknown) => void> = [];
  let log = "";
  const keep = (text: string) => {
    log = (log + text).slice(-8000);
  };
  const proc = Bun.spawn(options.command, {
    cwd: options.cwd,
    env: { ...process.env, ...options.env },
    stdin: "ignore",
    stdout: "pipe",
    stderr: "pipe",
    serialization: options.serialization ?? "advanced",
    ipc(message) {
      waiting.shift()?.(message);
    },
  });
  // Both pipes are drained for the child's whole life, so a chatty child never blocks on a full pipe.
  const drain = async (stream: ReadableStream<Uint8Array>, onLine?: (line: string) => void) => {
    const decoder = new TextDecoder();
    let pending = "";
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      keep(text);
      if (!onLine) continue;
      pending += text;
      let newline: number;
      while ((newline = pending.indexOf("\n")) !== -1) {
        onLine(pending.slice(0, newline));
        pending = pending.slice(newline + 1);
      }
    }
  };
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const ready = new Promise<Record<string, unknown>>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${name} did not start within ${startTimeoutMs / 1000} s:\n${log}`)), startTimeoutMs);
    void drain(proc.stdout as ReadableStream<Uint8Array>, (line) => {
      if (!line.startsWith("{")) return;
      try {
        const parsed = JSON.parse(line) as Record<string, unknown>;
        if (parsed.ready === true) {
          clearTimeout(timer);
          resolve(parsed);
        }
      } catch {
        // not our line
      }
    });
    void proc.exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code} before it was ready:\n${log}`));
    });
  });
  void drain(proc.stderr as ReadableStream<Uint8Array>);
  let info: Record<string, unknown>;
  try {
    info = await ready;
  } catch (error) {
    proc.kill("SIGKILL");
    throw error;
  }
  const ask = (message: string, timeoutMs = 10_000) =>
    new Promise<unknown>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name} did not answer ${message}`)), timeoutMs);
      waiting.push((reply) => {
        clearTimeout(timer);
        resolve(reply);
      });
      proc.send(message);
    });
  return {
    name,
    proc,
    // taskset execs the command in its own process: the pid is the server's.
    pid: proc.pid,
    port: Number(info.port),
    info,
    gc: () => ask("gc") as Promise<ChildReply>,
    ask,
    output: () => log,
  };
}

export async function stopChild(child: Child): Promise<void> {
  if (child.proc.exitCode !== null) return;
  child.proc.kill("SIGTERM");
  const exited = await Promise.race([child.proc.exited.then(() => true), Bun.sleep(5000).then(() => false)]);
  if (!exited) child.proc.kill("SIGKILL");
}
