/** `bun build --compile` gives one working binary: build it, start it, send it a real request. */
import { afterAll, describe, expect, test } from "bun:test";
import { readFileSync, copyFileSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { manyPagesPdf } from "../support/hostile-documents.ts";
import { minimalPdf, pdfDataUrl } from "../support/pdf.ts";

const root = resolve(import.meta.dir, "../..");
const dir = mkdtempSync(join(tmpdir(), "gw-bin-"));
let child: ReturnType<typeof Bun.spawn> | undefined;
afterAll(() => child?.kill("SIGKILL"));

/** The `url` of the "gateway listening" log line, or "" if it does not come within `ms`. */
async function listeningUrl(stdout: ReadableStream<Uint8Array>, ms: number): Promise<string> {
  const reader = stdout.getReader();
  const decoder = new TextDecoder();
  const deadline = Bun.sleep(ms).then(() => undefined);
  let text = "";
  for (;;) {
    const next = await Promise.race([reader.read(), deadline]);
    if (!next || next.done) return "";
    text += decoder.decode(next.value, { stream: true });
    for (const line of text.split("\n")) {
      if (!line.includes('"gateway listening"')) continue;
      const url = (JSON.parse(line) as { url?: string }).url;
      if (url) {
        reader.releaseLock();
        return url;
      }
    }
  }
}

describe("single binary", () => {
  test(
    "builds, starts on embedded defaults, serves chat completions, and runs a plugin loaded from outside the checkout",
    async () => {
      const outfile = join(dir, "gateway");
      // Exactly the README's `npm run build:binary` (the sandbox and document workers are entrypoints of their own), to our outfile.
      const script = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts["build:binary"]!;
      const args = script.split(/\s+/).map((arg) => (arg === "dist/gateway" ? outfile : arg));
      const build = Bun.spawnSync(args, { cwd: root, stdout: "pipe", stderr: "pipe" });
      expect(build.exitCode, build.stderr.toString()).toBe(0);
      // Run from an empty directory: the binary must not need the source tree. PORT=0: the system picks a free
      // port (a fixed random one can collide with the suite's own loopback connections); the log line names it.
      // The example plugin copied to a folder with no node_modules: its imports of the SDK and TypeBox must resolve to
      // the binary's own instances.
      copyFileSync(join(root, "examples/plugins/shout.ts"), join(dir, "shout.ts"));
      writeFileSync(join(dir, "gateway.config.json"), JSON.stringify({ extensions: [{ module: "./shout.ts", options: { suffix: "!" } }] }));
      child = Bun.spawn([outfile], {
        cwd: dir,
        env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", GATEWAY_ADMIN_KEY: "binary-admin", LOG_LEVEL: "info", GATEWAY_CONFIG: join(dir, "gateway.config.json") },
        stdout: "pipe",
        stderr: "pipe",
      });
      const base = await listeningUrl(child.stdout as ReadableStream<Uint8Array>, 20_000);
      // Its stderr only when it failed to start (reading it to the end waits for the process to exit).
      if (base === "") child.kill();
      const why = base === "" ? await new Response(child.stderr as ReadableStream<Uint8Array>).text() : "";
      expect(base, why).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
      const health = await fetch(`${base}/health`);
      expect(health.ok).toBe(true);
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
      const shouted = await fetch(`${base}/chat/completions`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: "hello binary" }], plugins: [{ id: "shout" }] }),
      });
      expect(shouted.status).toBe(200);
      const loud = ((await shouted.json()) as { choices: Array<{ message: { content: string } }> }).choices[0]!.message.content;
      expect(loud).toBe(body.choices[0]!.message.content.toUpperCase() + "!");
      // The sandbox runs inside the binary: the simulator calls service:shell, whose just-bash worker is embedded.
      const ran = await fetch(`${base}/responses`, {
        method: "POST",
        headers: { authorization: `Bearer ${created.key}`, "content-type": "application/json" },
        body: JSON.stringify({ model: "simulator/small", input: "run it", tools: [{ type: "service:shell" }] }),
      });
      expect(ran.status).toBe(200);
      const item = ((await ran.json()) as { output: Array<Record<string, unknown>> }).output.find((o) => o.type === "service:shell");
      expect(item, JSON.stringify(item)).toMatchObject({ status: "completed" });
      expect(String(item!.container_id)).toMatch(/^ctr_/);
      // just-bash answered (no such command in the simulated shell), so its worker loaded inside the binary.
      expect((item!.output as Array<{ stderr: string; outcome: unknown }>)[0]).toMatchObject({ outcome: { type: "exit", exit_code: 127 } });
      // Documents are read in a worker embedded in the binary too: a PDF's text reaches the model, a hostile one is capped.
      const withPdf = (pdf: Uint8Array) =>
        fetch(`${base}/chat/completions`, {
          method: "POST",
          headers: { authorization: `Bearer ${created.key}`, "content-type": "application/json", "x-service-metadata": "enabled" },
          body: JSON.stringify({ model: "simulator/small", messages: [{ role: "user", content: [{ type: "text", text: "read" }, { type: "file", file: { filename: "a.pdf", file_data: pdfDataUrl(pdf) } }] }] }),
        });
      const parsed = await withPdf(minimalPdf(["Inside the binary"]));
      expect(parsed.status).toBe(200);
      const pipeline = ((await parsed.json()) as { service_metadata: { pipeline: Array<Record<string, unknown>> } }).service_metadata.pipeline;
      expect(pipeline.find((entry) => entry.name === "file-parser")).toMatchObject({ engine: "pdf-text", parsed: 1, pages: 1 });
      const capped = await withPdf(manyPagesPdf(2_001));
      expect(capped.status).toBe(400);
      expect(((await capped.json()) as { error: { message: string } }).error.message).toContain("documents.pdf.max_pages");
      // The admin page and its bundled scripts (uPlot included) are inside the binary, served offline.
      const origin = base.replace(/\/api\/v1$/, "");
      const page = await fetch(`${origin}/admin`);
      expect(page.status).toBe(200);
      // With its security headers (README "Admin page"): a policy that allows only its own files, and no framing.
      expect(page.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
      expect(page.headers.get("x-frame-options")).toBe("DENY");
      expect(page.headers.get("x-content-type-options")).toBe("nosniff");
      expect(page.headers.get("referrer-policy")).toBe("no-referrer");
      const html = await page.text();
      const pageScript = /<script[^>]+src="([^"]+)"/.exec(html)?.[1];
      expect(pageScript, html).toBeDefined();
      const js = await fetch(new URL(pageScript!, `${origin}/admin`));
      expect(js.status).toBe(200);
      expect(js.headers.get("x-content-type-options")).toBe("nosniff");
      const code = await js.text();
      expect(code).toContain("Gateway admin");
      expect(code).toContain("uplot");
      // Metrics, open (no metrics.token in this config).
      expect((await fetch(`${origin}/metrics`)).status).toBe(200);
    },
    120_000,
  );
});
