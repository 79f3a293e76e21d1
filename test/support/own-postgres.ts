/**
 * A Postgres server of the test's own: `initdb` into a temporary folder, `postgres` on a free loopback port, stopped
 * and started again by PID. Outage tests stop it under traffic; the machine's shared service (5432) is never touched.
 * `findPostgres()` says why it cannot run (no binaries, or root without a `postgres` user to run them as).
 */
import type { Subprocess } from "bun";
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { freePort } from "./free-port.ts";

/** How to run the server binaries: their folder, and the command prefix that drops root (empty when not root). */
export interface PostgresBinaries {
  bin: string;
  asUser: string[];
  owner: { uid: number; gid: number } | undefined;
}

/** The binaries, or the reason the tests that need them skip. */
export function findPostgres(): PostgresBinaries | { skip: string } {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, "bin", "initdb"))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) return { skip: `no Postgres server binaries under ${root}/*/bin` };
  const bin = join(root, newest, "bin");
  if (process.getuid?.() !== 0) return { bin, asUser: [], owner: undefined };
  // initdb and postgres refuse to run as root: run them as the distribution's `postgres` user.
  const line = readFileSync("/etc/passwd", "utf8").split("\n").find((l) => l.startsWith("postgres:"));
  const setpriv = ["/usr/bin/setpriv", "/bin/setpriv"].find((p) => existsSync(p));
  if (!line || !setpriv) return { skip: "running as root without a postgres user and setpriv to run the Postgres binaries as" };
  const [, , uid, gid] = line.split(":");
  // setpriv execs (no fork), so the PID we hold is the postmaster's own.
  return { bin, asUser: [setpriv, `--reuid=${uid}`, `--regid=${gid}`, "--init-groups"], owner: { uid: Number(uid), gid: Number(gid) } };
}

/** A running (or stopped) server of our own. */
export interface OwnPostgres {
  port: number;
  /** `postgres://postgres@127.0.0.1:PORT/postgres` */
  url: string;
  /** The postmaster's PID while it runs. */
  readonly pid: number | undefined;
  /** Starts the server (again) on the same port and data folder; resolves once it accepts queries. */
  start(): Promise<void>;
  /** Immediate shutdown (SIGQUIT to the postmaster, as `pg_ctl stop -m immediate`): connections drop at once. */
  stop(): Promise<void>;
  /** Stops it and deletes its folder. */
  destroy(): Promise<void>;
}

/** Creates a cluster in a temporary folder and starts it. */
export async function startOwnPostgres(bins: PostgresBinaries): Promise<OwnPostgres> {
  const dir = mkdtempSync(join(tmpdir(), "gw-own-pg-"));
  const data = join(dir, "data");
  if (bins.owner) chownSync(dir, bins.owner.uid, bins.owner.gid);
  const init = Bun.spawnSync([...bins.asUser, join(bins.bin, "initdb"), "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync"], { stdout: "ignore", stderr: "pipe" });
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  const port = await freePort();
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  let child: Subprocess | undefined;

  async function start(): Promise<void> {
    if (child) return;
    // fsync off (only an OS crash could lose data then) and a socket folder of its own: fast, and nothing shared with
    // the machine's server. Commits stay synchronous: the tests stop the server the hard way, and a commit it
    // acknowledged must survive that, as on any real deployment.
    child = Bun.spawn(
      [...bins.asUser, join(bins.bin, "postgres"), "-D", data, "-p", String(port), "-h", "127.0.0.1", "-k", dir, "-F", "-c", "full_page_writes=off", "-c", "max_connections=60"],
      { stdout: "ignore", stderr: "ignore" },
    );
    const deadline = Date.now() + 20_000;
    for (;;) {
      const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 1_000 });
      client.on("error", () => undefined);
      try {
        await client.connect();
        await client.query("select 1");
        await client.end();
        return;
      } catch (error) {
        await client.end().catch(() => undefined);
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`own postgres did not start: ${(error as Error).message}`);
        await Bun.sleep(50);
      }
    }
  }

  async function stop(): Promise<void> {
    const running = child;
    child = undefined;
    if (!running) return;
    running.kill("SIGQUIT");
    await Promise.race([running.exited, Bun.sleep(5_000)]);
    if (running.exitCode === null) {
      running.kill("SIGKILL");
      await running.exited;
    }
    // An immediate shutdown leaves the server's backends to exit on their own; a restart waits for their shared
    // memory, so give them the moment they need.
    await Bun.sleep(50);
  }

  await start();
  return {
    port,
    url,
    get pid() {
      return child?.pid;
    },
    start,
    stop,
    async destroy() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
