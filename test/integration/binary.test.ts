/** `bun build --compile` gives one working binary: build it, start it, send it a real request. */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "gw-bin-"));
let child: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => child?.kill("SIGKILL"));

describe("single binary", () => {
  test(
    "builds, starts on embedded defaults and serves chat completions",
    async () => {
      const outfile = join(dir, "gateway");
      const build = Bun.spawnSync(["bun", "build", "--compile", "server.ts", "--outfile", outfile], { cwd: root, stdout: "pipe", stderr: "pipe" });
      expect(build.exitCode, build.stderr.toString()).toBe(0);
      const port = 20000 + Math.floor(Math.random() * 20000);
      // Run from an empty directory: the binary must not need the source tree.
      child = Bun.spawn([outfile], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: String(port), GATEWAY_ADMIN_KEY: "binary-admin", LOG_LEVEL: "warn" },
        stdout: "ignore",
        stderr: "pipe",
      });
      const base = `http://127.0.0.1:${port}/api/v1`;
      let up = false;
      for (let i = 0; i < 100 && !up; i++) {
        up = await fetch(`${base}/health`).then((r) => r.ok, () => false);
        if (!up) await Bun.sleep(100);
      }
      expect(up).toBe(true);
      const created = (await (await fetch(`${base}/keys`, { method: "POST", headers: { authorization: "Bearer binary-admin", "content-type": "application/json" }, body: JSON.stringify({ name: "bin" }) })).json()) as { key: string };
      const res = await fetch(`${base}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: "hello binary" }] }),
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
      expect(body.choices[0]!.message.content.length).toBeGreaterThan(0);
      expect(await Bun.file(join(dir, "data", "gateway.db")).exists()).toBe(true);
    },
    120_000,
  );
});
