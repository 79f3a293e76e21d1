/**
 * Tenants share the sandbox fairly (README "Containers", Sandboxes), through HTTP with a scripted model that runs the
 * bash command each request names: one workspace filling every slot with long sleeps does not hold back another
 * workspace's echo; a command that waits past `sandbox.queue_timeout_ms` gets a tool error naming it; on bwrap a fork
 * bomb in one container does not fail another container's command (same workspace or another); and a `bwrap` backend
 * that cannot run is a start-up error unless `sandbox.allow_fallback` is set.
 *
 * Orderings, not durations: each long command leaves a `started` file when it begins and a `finished` file when its
 * sleep is over, so "answered while the sleeps still run" is "answered while no `finished` file exists".
 * The bwrap cases are skipped, with the probe's reason printed, where bubblewrap cannot run.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { chmodSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { hashSecret, labelOf, newSecret } from "../../core/auth/key-material.ts";
import type { ConfigFile } from "../../core/config/file-schema.ts";
import { probeBwrap } from "../../core/sandbox/bwrap/probe.ts";
import { resolveSandboxSettings } from "../../core/sandbox/settings.ts";
import { spawnGatewayChild } from "../support/gateway-process.ts";
import { startTestGateway } from "../support/gateway.ts";
import type { Script } from "../support/scripted-model.ts";
import { MODEL, startAgentGateway, type AgentGateway } from "./agent/setup.ts";

type Json = Record<string, any>;

const probe = await probeBwrap(resolveSandboxSettings({ workers: 2 }));
if (!probe.ok) console.log(`[sandbox-fairness] bwrap cases skipped: ${probe.reason}`);
// Only asked whether bwrap runs: the gateways below make plans of their own.
else rmSync(probe.plan.etcDir, { recursive: true, force: true });

/** bwrap's process limit per command in the fork bomb case: small, so the bomb reaches it at once on a busy machine. */
const MAX_PROCESSES = 32;
/** This file's own uid range (slot i runs as FIRST_UID + i), apart from other suites' gateways on the same host. */
const FIRST_UID = 2_000_026_000;

/** What `job:<name>` in a user message makes the model run with bash. */
const JOBS: Record<string, string> = {
  sleep: "touch started; sleep 20; touch finished",
  echo: "echo hello",
  // Forks until the slot's process limit is reached, then stays (spinning: a fork is no longer possible).
  bomb: ":(){ :|:& };:; while :; do :; done",
};

const runTheJob: Script = (body) => {
  const messages = body.messages as Json[];
  if (messages.some((m) => m.role === "tool")) return { text: "done" };
  const job = /job:(\w+)/.exec(JSON.stringify(messages))?.[1] ?? "echo";
  return { calls: [{ name: "bash", args: { command: JOBS[job]!, timeout_ms: 60_000 } }] };
};

interface Setup {
  agent: AgentGateway;
  /** An inference key of a second workspace. */
  otherKey: string;
  /** Files named `name` in every container so far. */
  marks(name: string): number;
  close(): Promise<void>;
}

async function start(sandbox: NonNullable<ConfigFile["sandbox"]>): Promise<Setup> {
  const dir = mkdtempSync(join(tmpdir(), "sandbox-fairness-"));
  // bwrap runs commands as unprivileged uids, which must be able to reach the container directories.
  chmodSync(dir, 0o755);
  const containers = join(dir, "containers");
  const agent = await startAgentGateway(runTheJob, { sandbox: { dir: containers, ...sandbox } });
  const store = agent.gw.gateway.deps.store;
  const other = await store.workspaces.create("other");
  const otherKey = newSecret();
  await store.keys.create({ hash: hashSecret(otherKey), workspaceId: other.id, name: "other", label: labelOf(otherKey), isManagement: false, limit: null, limitReset: null, expiresAt: null });
  const marks = (name: string) => readdirSync(containers, { recursive: true, encoding: "utf8" }).filter((path) => basename(path) === name).length;
  return {
    agent,
    otherKey,
    marks,
    close: async () => {
      await agent.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** Asks the model for `job` with `key`; resolves with the Messages body. */
async function ask(setup: Setup, key: string, job: string, signal?: AbortSignal): Promise<Json> {
  const res = await setup.agent.gw.request("/messages", {
    method: "POST",
    key,
    json: { model: MODEL, max_tokens: 100, messages: [{ role: "user", content: `job:${job}` }], tools: [{ type: "service:bash" }] },
    signal: signal ?? null,
  });
  expect(res.status).toBe(200);
  return (await res.json()) as Json;
}

/** The bash result block's content of a Messages body. */
const bashResult = (body: Json): Json => (body.content as Json[]).find((block) => block.type === "service_bash_tool_result")!.content as Json;

/** Waits until `count` files named `name` exist (a bounded poll: the commands are started, not timed). */
async function waitForMarks(setup: Setup, name: string, count: number): Promise<void> {
  for (let i = 0; i < 1_500 && setup.marks(name) < count; i++) await Bun.sleep(20);
  expect(setup.marks(name)).toBeGreaterThanOrEqual(count);
}

/** Processes (zombies included: they still count against a limit) of uids `first` … `first + count - 1`. */
function processesOf(first: number, count: number): number {
  const uids = Array.from({ length: count }, (_, i) => first + i).join(",");
  return Number(Bun.spawnSync(["pgrep", "-c", "-u", uids]).stdout.toString().trim() || 0);
}

/** Waits until `condition` holds once (a bounded poll; a process count may drop again the moment after it held). */
async function waitUntil(condition: () => boolean): Promise<void> {
  let held = false;
  for (let i = 0; i < 1_500 && !(held = condition()); i++) await Bun.sleep(20);
  expect(held).toBe(true);
}

/** Starts `n` requests for `job`; cancel() ends them (the gateway then kills their commands). */
function inFlight(setup: Setup, key: string, job: string, n: number) {
  const controller = new AbortController();
  const requests = Array.from({ length: n }, () => ask(setup, key, job, controller.signal).catch(() => undefined));
  return {
    cancel: async () => {
      controller.abort();
      await Promise.all(requests);
    },
  };
}

const backends = [
  { name: "just-bash" as const, usable: true },
  { name: "bwrap" as const, usable: probe.ok },
];

for (const { name: backend, usable } of backends) {
  describe.skipIf(!usable)(`fair slots: ${backend}`, () => {
    test("one workspace fills every slot with sleeps; another workspace's echo is answered while they all still run", async () => {
      const setup = await start({ backend, workers: 2 });
      try {
        // Three sleeps for two slots: both held, one waiting in the workspace's queue.
        const sleeps = inFlight(setup, setup.agent.gw.inferenceKey, "sleep", 3);
        await waitForMarks(setup, "started", 2);
        const body = await ask(setup, setup.otherKey, "echo");
        expect(bashResult(body)).toMatchObject({ stdout: "hello\n", exitCode: 0 });
        expect(setup.marks("finished")).toBe(0);
        // The third sleep is still queued behind its own workspace's two.
        expect(setup.marks("started")).toBe(2);
        await sleeps.cancel();
      } finally {
        await setup.close();
      }
    }, 60_000);

    test("a command that waits past sandbox.queue_timeout_ms gets a tool error naming the cap, and never runs", async () => {
      const setup = await start({ backend, workers: 1, queue_timeout_ms: 300 });
      try {
        const sleeps = inFlight(setup, setup.agent.gw.inferenceKey, "sleep", 1);
        await waitForMarks(setup, "started", 1);
        // The same workspace: it already holds its share (the one slot), so the spare is not for it.
        const body = await ask(setup, setup.agent.gw.inferenceKey, "echo");
        expect(setup.marks("finished")).toBe(0);
        const toolMessage = setup.agent.upstream.bodies
          .flatMap((b) => b.messages as Json[])
          .find((m) => m.role === "tool" && String(m.content).includes("sandbox.queue_timeout_ms"));
        expect(toolMessage).toBeDefined();
        const seen = JSON.parse(String(toolMessage!.content)) as Json;
        expect(seen.error).toContain("waited 300 ms (sandbox.queue_timeout_ms) for a free slot and did not run");
        // The client sees the same error as the call's result: no output, since nothing ran.
        expect(bashResult(body)).toEqual({ error: seen.error });
        await sleeps.cancel();
      } finally {
        await setup.close();
      }
    }, 60_000);
  });
}

describe.skipIf(!probe.ok)("bwrap: a process limit per command", () => {
  test("a fork bomb in one container fails no other container's command, in another workspace or the same one", async () => {
    const setup = await start({ backend: "bwrap", workers: 2, max_processes: MAX_PROCESSES, first_uid: FIRST_UID });
    try {
      const bomb = inFlight(setup, setup.agent.gw.inferenceKey, "bomb", 1);
      // Saturated: the slot uids hold (nearly) the whole limit. Counted from outside, as the sandbox runs at the
      // lowest CPU priority and may barely run on a busy machine.
      await waitUntil(() => processesOf(FIRST_UID, 3) >= MAX_PROCESSES - 2);
      // Another workspace, then the bomb's own workspace (a new container: each request without a session gets one).
      for (const key of [setup.otherKey, setup.agent.gw.inferenceKey]) {
        const result = bashResult(await ask(setup, key, "echo"));
        expect(result).toMatchObject({ stdout: "hello\n", stderr: "", exitCode: 0 });
      }
      await bomb.cancel();
      // The bomb's slot is free again and runs the next commands: none of the bomb's processes outlived it.
      for (let i = 0; i < 3; i++) expect(bashResult(await ask(setup, setup.otherKey, "echo"))).toMatchObject({ stdout: "hello\n", exitCode: 0 });
    } finally {
      await setup.close();
    }
  }, 60_000);
});

describe("a bwrap backend that cannot run", () => {
  const missing = { backend: "bwrap" as const, bwrap_path: "/nonexistent/bwrap" };
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  test("is a start-up error saying why", async () => {
    const starting = startTestGateway({ file: { sandbox: missing } });
    await expect(starting).rejects.toThrow('sandbox.backend is "bwrap" but bubblewrap cannot run on this host: /nonexistent/bwrap not found');
  });

  test("stops `bun server.ts` with one line naming the cause and sandbox.allow_fallback, no stack", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sandbox-fairness-start-"));
    dirs.push(dir);
    const config = join(dir, "gateway.json");
    writeFileSync(config, JSON.stringify({ simulator: true, sandbox: { ...missing, dir: join(dir, "containers") } }));
    const child = spawnGatewayChild({ GATEWAY_CONFIG: config, DATABASE_URL: "sqlite://:memory:", GATEWAY_ADMIN_KEY: "sandbox-fairness-admin-0123" });
    try {
      const code = await Promise.race([child.child.exited, Bun.sleep(30_000).then(() => -1)]);
      expect(code).toBe(1);
      const lines = child.stderr().trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toStartWith('gateway: sandbox.backend is "bwrap" but bubblewrap cannot run on this host: /nonexistent/bwrap not found');
      expect(lines[0]).toContain("sandbox.allow_fallback");
    } finally {
      await child.kill();
    }
  }, 40_000);

  test("with sandbox.allow_fallback, starts on just-bash and runs commands", async () => {
    const setup = await start({ ...missing, allow_fallback: true });
    try {
      expect(bashResult(await ask(setup, setup.agent.gw.inferenceKey, "echo"))).toMatchObject({ stdout: "hello\n", exitCode: 0 });
    } finally {
      await setup.close();
    }
  });
});
