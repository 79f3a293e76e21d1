/**
 * The admin page (README "Admin page") is served with its Content-Security-Policy, `frame-ancestors 'none'` and the
 * other security headers, on the page and on each of its files, from source (`bun server.ts`, which the test
 * gateway serves like) and from `npm start`'s bundle; the compiled binary's are checked in binary.test.ts and, in a
 * browser, test/browser/admin.test.ts. Only GET and HEAD reach the page.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const root = resolve(import.meta.dir, "../..");

function expectSecurityHeaders(response: Response): void {
  const csp = response.headers.get("content-security-policy") ?? "";
  const directives = new Map(csp.split(";").map((d) => d.trim().split(/\s+/)).map(([name, ...values]) => [name!, values.join(" ")]));
  expect(directives.get("default-src")).toBe("'none'");
  expect(directives.get("script-src")).toBe("'self'");
  expect(directives.get("style-src")).toBe("'self'");
  expect(directives.get("connect-src")).toBe("'self'");
  expect(directives.get("frame-ancestors")).toBe("'none'");
  expect(response.headers.get("x-frame-options")).toBe("DENY");
  expect(response.headers.get("x-content-type-options")).toBe("nosniff");
  expect(response.headers.get("referrer-policy")).toBe("no-referrer");
}

/** The page at both its paths, everything it loads, nothing inline that the policy would block. */
async function checkPage(origin: string): Promise<void> {
  for (const path of ["/admin", "/admin/"]) {
    const page = await fetch(origin + path);
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toStartWith("text/html");
    expectSecurityHeaders(page);
    const html = await page.text();
    // Every script has a source, no style element or attribute: the page needs no 'unsafe-inline'.
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle=/);
    const files = [...html.matchAll(/<(?:script|link)[^>]+(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(files.length).toBe(2);
    for (const file of files) {
      const loaded = await fetch(new URL(file, origin + path));
      expect(loaded.status, file).toBe(200);
      expect(loaded.headers.get("content-type")).toMatch(file.endsWith(".css") ? /^text\/css/ : /^text\/javascript/);
      expectSecurityHeaders(loaded);
      expect((await loaded.text()).length).toBeGreaterThan(1000);
    }
  }
  const head = await fetch(`${origin}/admin`, { method: "HEAD" });
  expect(head.status).toBe(200);
  expectSecurityHeaders(head);
  // Any other method is the API's 404, not the page.
  const post = await fetch(`${origin}/admin`, { method: "POST" });
  expect(post.status).toBe(404);
  expect(((await post.json()) as { error: { code: number } }).error.code).toBe(404);
}

describe("admin page from source", () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway();
  });
  afterAll(() => gw.close());

  test("the page and its files carry the security headers", async () => {
    await checkPage(gw.origin);
  }, 30_000);

  test("a file the page does not have is a 404 envelope", async () => {
    const missing = await fetch(`${gw.origin}/admin/assets/nothing.js`);
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { message: string } }).error.message).toBe("No such file of the admin page");
  });
});

describe("admin page from npm start's bundle", () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-bundle-"));
  let child: ReturnType<typeof Bun.spawn> | undefined;
  afterAll(() => {
    child?.kill("SIGKILL");
    rmSync(dir, { recursive: true, force: true });
  });

  test("the page and its files carry the security headers", async () => {
    // `npm start` is `bun build … --outdir dist && bun dist/server.js`: the same build, to a folder of our own.
    const start = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts.start!;
    const build = start.split("&&")[0]!.trim().split(/\s+/).map((arg, i) => (i === 0 ? process.execPath : arg === "dist" ? join(dir, "dist") : arg));
    const built = Bun.spawnSync(build, { cwd: root, stdout: "pipe", stderr: "pipe" });
    expect(built.exitCode, built.stderr.toString()).toBe(0);
    child = Bun.spawn([process.execPath, join(dir, "dist", "server.js")], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? "", HOST: "127.0.0.1", PORT: "0", GATEWAY_ADMIN_KEY: "bundle-admin", LOG_LEVEL: "info", DATABASE_URL: "sqlite://:memory:" },
      stdout: "pipe",
      stderr: "pipe",
    });
    const base = await listeningUrl(child.stdout as ReadableStream<Uint8Array>, 20_000);
    expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/v1$/);
    await checkPage(base.replace(/\/api\/v1$/, ""));
  }, 120_000);
});

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
    const url = /"url":"(http:\/\/127\.0\.0\.1:\d+\/api\/v1)"/.exec(text)?.[1];
    if (url) {
      // Keep draining, so the child never blocks on a full pipe.
      void (async () => {
        for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) break;
      })();
      return url;
    }
  }
}
