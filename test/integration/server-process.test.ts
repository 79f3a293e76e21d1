/** The real entry point as a child process: first-start keys, bad config, graceful SIGTERM. */
import { afterEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";

const root = resolve(import.meta.dir, "../..");
const children: Subprocess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

function spawnGateway(env: Record<string, string>, cmd: string[] = ["bun", "server.ts"]) {
  const child = Bun.spawn(cmd, { cwd: root, env: { ...process.env, HOST: "127.0.0.1", LOG_LEVEL: "info", DATABASE_URL: "", REDIS_URL: "", GATEWAY_ADMIN_KEY: "", ...env }, stdout: "pipe", stderr: "pipe" });
  children.push(child);
  return child;
}

/** Reads stdout until `pattern` appears (or the process ends). */
async function waitFor(stream: ReadableStream<Uint8Array>, pattern: RegExp, timeoutMs = 15_000): Promise<string> {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = Date.now() + timeoutMs;
  // One read in flight at a time: a read that lost the race to the timer is awaited again, not replaced (a
  // replaced read's chunk would be lost).
  let pending: ReturnType<typeof reader.read> | undefined;
  while (!pattern.test(text) && Date.now() < deadline) {
    pending ??= reader.read();
    const chunk = await Promise.race([pending, Bun.sleep(200).then(() => undefined)]);
    if (chunk === undefined) continue;
    pending = undefined;
    if (chunk.done) break;
    text += decoder.decode(chunk.value, { stream: true });
  }
  if (pending === undefined) reader.releaseLock();
  return text;
}

/**
 * The API base from the "gateway listening" log line. The tests start gateways on PORT=0: a random fixed port can
 * collide with the suite's own loopback connections in the ephemeral range (it did).
 */
function listeningBase(output: string): string {
  const url = /"url":"(http:\/\/[^"]+)"/.exec(output)?.[1];
  if (!url) throw new Error(`no "gateway listening" line in:\n${output}`);
  return url;
}

describe("server process", () => {
  test("first start on an empty database prints one management and one inference key that work", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-"));
    const child = spawnGateway({ PORT: "0", DATABASE_URL: `sqlite://${dir}/g.db` });
    const out = await waitFor(child.stdout, /inference key:\s+\S+/);
    const management = /management key:\s+(\S+)/.exec(out)?.[1];
    const inference = /inference key:\s+(\S+)/.exec(out)?.[1];
    expect(management).toMatch(/^sk-gw-v1-/);
    expect(inference).toMatch(/^sk-gw-v1-/);
    const base = listeningBase(out);
    const chat = await fetch(`${base}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${inference}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: "hi" }] }),
    });
    expect(chat.status).toBe(200);
    const keys = await fetch(`${base}/keys`, { headers: { authorization: `Bearer ${management}` } });
    expect(keys.status).toBe(200);
    child.kill("SIGTERM");
    await child.exited;
    // Second start on the same database: no new keys are printed, the old ones still work (they persisted).
    const again = spawnGateway({ PORT: "0", DATABASE_URL: `sqlite://${dir}/g.db` });
    const out2 = await waitFor(again.stdout, /gateway listening/);
    expect(out2).not.toContain("inference key:");
    const reuse = await fetch(`${listeningBase(out2)}/key`, { headers: { authorization: `Bearer ${inference}` } });
    expect(reuse.status).toBe(200);
  });

  test("an invalid config file exits non-zero naming the bad field", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ providers: [{ id: "x", adapter: "openai", base_url: "http://127.0.0.1:1/v1", models: [{ id: "m", pricing: { prompt: "cheap", completion: 1 } }] }] }));
    const child = spawnGateway({ PORT: "0", GATEWAY_CONFIG: file, DATABASE_URL: `sqlite://${dir}/g.db` });
    expect(await child.exited).toBe(1);
    const err = await new Response(child.stderr).text();
    expect(err).toContain("providers.0.models.0.pricing.prompt");
  });

  test("an unknown adapter exits non-zero naming the field", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-"));
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ providers: [{ id: "x", adapter: "warp-drive", base_url: "http://127.0.0.1:1/v1", models: [{ id: "m" }] }] }));
    const child = spawnGateway({ PORT: "0", GATEWAY_CONFIG: file, DATABASE_URL: `sqlite://${dir}/g.db` });
    expect(await child.exited).toBe(1);
    expect(await new Response(child.stderr).text()).toContain('providers[0].adapter": unknown adapter "warp-drive"');
  });

  test("SIGTERM lets a running stream finish and refuses new connections", async () => {
    const dir = mkdtempSync(join(tmpdir(), "gw-"));
    const child = spawnGateway({ PORT: "0", DATABASE_URL: `sqlite://${dir}/g.db`, GATEWAY_ADMIN_KEY: "admin-for-sigterm-test" });
    const base = listeningBase(await waitFor(child.stdout, /gateway listening/));
    const created = (await (await fetch(`${base}/keys`, { method: "POST", headers: { authorization: "Bearer admin-for-sigterm-test", "content-type": "application/json" }, body: JSON.stringify({ name: "k" }) })).json()) as { key: string };
    const res = await fetch(`${base}/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${created.key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "simulator/small", stream: true, messages: [{ role: "user", content: "[sim tokens=30 delay=30]" }] }),
    });
    const reader = res.body!.getReader();
    await reader.read();
    child.kill("SIGTERM");
    await Bun.sleep(150);
    const refused = await fetch(`${base}/health`).then(() => false, () => true);
    expect(refused).toBe(true);
    let text = "";
    const decoder = new TextDecoder();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      text += decoder.decode(value);
    }
    expect(text).toContain("data: [DONE]");
    expect(await child.exited).toBe(0);
  });
});
