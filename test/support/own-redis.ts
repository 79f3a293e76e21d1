/**
 * A Redis server of the test's own on a free loopback port (no persistence), killed and restarted by PID. Outage
 * tests kill it under traffic; the machine's shared service (6379) is never touched.
 */
import type { Subprocess } from "bun";
import net from "node:net";
import { freePort } from "./free-port.ts";

/** The redis-server binary, or the reason the tests that need it skip. */
export function findRedis(): string | { skip: string } {
  const path = Bun.which("redis-server");
  return path ?? { skip: "no redis-server on PATH" };
}

export interface OwnRedis {
  port: number;
  url: string;
  readonly pid: number | undefined;
  /** Starts it (again) on the same port; resolves once it answers PING. */
  start(): Promise<void>;
  /** SIGKILL: every connection drops, every key is gone. */
  kill(): Promise<void>;
}

export async function startOwnRedis(binary: string): Promise<OwnRedis> {
  const port = await freePort();
  let child: Subprocess | undefined;

  async function start(): Promise<void> {
    if (child) return;
    child = Bun.spawn([binary, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"], { stdout: "ignore", stderr: "ignore" });
    const deadline = Date.now() + 10_000;
    while (!(await pings(port))) {
      if (child.exitCode !== null || Date.now() > deadline) throw new Error("own redis did not start");
      await Bun.sleep(20);
    }
  }

  async function kill(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running) return;
    running.kill("SIGKILL");
    await running.exited;
  }

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    get pid() {
      return child?.pid;
    },
    start,
    kill,
  };
}

/** One raw PING over TCP: true on +PONG. */
function pings(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.on("error", () => done(false));
    socket.on("connect", () => socket.write("PING\r\n"));
    socket.on("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}
