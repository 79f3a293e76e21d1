/**
 * The admin page in a real browser, against the compiled binary on a real port: a wrong key is refused; sign in;
 * create a key and copy its secret; a request with it shows in the generation log (with its attempts) and in the
 * usage plot (the series has ink); requests refused for unknown models are one usage row; a batch's bar runs to
 * completed, and one with failed and pending requests shows the three apart; two preset versions diff; guardrails
 * are listed, created, edited, assigned and deleted (checked through the API and by a request they refuse); the live
 * containers are listed and one opens to its files; an unknown fragment says so. The page is served with its
 * Content-Security-Policy, cannot be framed, and no view breaks the policy. The binary runs with tracing on, so the
 * same run shows its embedded tracing SDK exporting to a loopback collector.
 * Screenshots go to test-artifacts/admin/. Skipped, saying why, when no Chromium is installed.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join, resolve } from "node:path";
import { chromium, type Browser, type Page } from "playwright-core";
import { startBinaryGateway, type BinaryGateway } from "../support/binary-gateway.ts";
import { chromiumPath } from "../support/chromium.ts";
import { startOtlpCollector, type OtlpCollector } from "../support/otlp-collector.ts";

const executablePath = chromiumPath();
if (!executablePath) console.log("browser tests skipped: no Chromium found (apt-get install -y chromium-headless-shell, or set CHROMIUM_PATH)");
const suite = executablePath ? describe : describe.skip;

const ADMIN = "admin-page-test-key-0123456789";
const SHOTS = resolve(import.meta.dir, "../../test-artifacts/admin");

let gateway: BinaryGateway;
let collector: OtlpCollector;
let browser: Browser;
let page: Page;
/** Every Content-Security-Policy violation the page reported (its `securitypolicyviolation` events, the console). */
const violations: string[] = [];

const api = (path: string, key: string, json?: unknown) =>
  fetch(`${gateway.base}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
const read = async <T>(path: string): Promise<T> => (await (await api(path, ADMIN)).json()) as T;

/** Runs in the page before its own scripts, on every document: reports each CSP violation to the test. */
const REPORT_VIOLATIONS = `document.addEventListener("securitypolicyviolation", (e) => window.reportCspViolation(e.effectiveDirective + " blocked " + (e.blockedURI || "inline") + " at " + e.sourceFile + ":" + e.lineNumber));`;

/** The few browser globals the page-side callbacks use (this project's types have no DOM library). */
interface BrowserGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
  getComputedStyle(element: unknown): { backgroundColor: string };
  document: {
    documentElement: { scrollWidth: number };
    querySelector(selector: string): { width: number; height: number; getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null } | null;
  };
}

/** Opens a view in a new document: going to the fragment already shown would load nothing new. */
async function openView(id: string): Promise<void> {
  await page.goto(`${gateway.origin}/admin#${id}`);
  await page.reload();
}

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

suite("admin page (compiled binary, headless Chromium)", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    collector = startOtlpCollector();
    gateway = await startBinaryGateway({
      adminKey: ADMIN,
      // Every request of a batch runs at once, so one held by the simulator stays pending beside those that ended.
      config: { batches: { poll_interval_ms: 50, per_batch_concurrency: 16 }, tracing: { endpoint: collector.url, delay_ms: 20 } },
    });
    browser = await chromium.launch({ executablePath: executablePath!, args: ["--no-sandbox"] });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: gateway.origin });
    await context.exposeFunction("reportCspViolation", (what: string) => violations.push(what));
    await context.addInitScript({ content: REPORT_VIOLATIONS });
    page = await context.newPage();
    // Shorter than a test's own limit, so a wait that fails says what it waited for.
    page.setDefaultTimeout(10_000);
    page.on("console", (message) => {
      if (/Content Security Policy/i.test(message.text())) violations.push(`console: ${message.text()}`);
    });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
    collector?.stop();
  });

  let secret = "";

  test("a wrong management key is refused; the right one signs in", async () => {
    await page.goto(`${gateway.origin}/admin`);
    await page.getByLabel("Management key").fill("not-a-key");
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.getByText("That key was refused").waitFor();
    await shot("01-refused");
    expect(await page.evaluate(() => sessionStorage.length)).toBe(0);
    await page.getByLabel("Management key").fill(ADMIN);
    await page.keyboard.press("Enter");
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    // The key is in this tab's session storage, never in the URL.
    expect(page.url()).not.toContain(ADMIN);
  }, 30_000);

  test("the page carries its Content-Security-Policy and cannot be framed", async () => {
    // `/admin/` (a document of its own: a fragment change alone would load nothing).
    const response = (await page.goto(`${gateway.origin}/admin/`))!;
    const headers = response.headers();
    const csp = headers["content-security-policy"] ?? "";
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("default-src 'none'");
    expect(csp).not.toContain("unsafe-");
    expect(headers["x-frame-options"]).toBe("DENY");
    expect(headers["x-content-type-options"]).toBe("nosniff");
    expect(headers["referrer-policy"]).toBe("no-referrer");
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    // Another page framing it gets nothing of it (in a browser context of its own: the refusal is that page's to
    // report). Its load event waits for the frame's.
    const framer = await browser.newPage();
    await framer.setContent(`<iframe src="${gateway.origin}/admin" title="framed"></iframe>`, { waitUntil: "load" });
    const framed = framer.frames().find((f) => f !== framer.mainFrame())!;
    expect(framed.url()).not.toStartWith(gateway.origin);
    expect(await framed.locator("#app").count().catch(() => 0)).toBe(0);
    await framer.close();
  }, 30_000);

  test("create a key and copy its secret", async () => {
    await page.getByLabel("Name").fill("browser key");
    await page.getByLabel("Credit limit (USD)").fill("5");
    await page.getByLabel("Limit resets").selectOption("monthly");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByTestId("new-secret");
    await shown.waitFor();
    secret = (await shown.textContent()) ?? "";
    expect(secret.length).toBeGreaterThan(20);
    await page.getByRole("button", { name: "Copy", exact: true }).click();
    await page.getByText("Copied to the clipboard.").waitFor();
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).navigator.clipboard.readText())).toBe(secret);
    await page.getByRole("cell", { name: "browser key", exact: true }).waitFor();
    await shot("02-key-created");
  }, 30_000);

  test("a request with the new key shows in the generation log and in the usage plot", async () => {
    const res = await api("/chat/completions", secret, { model: "simulator/small", messages: [{ role: "user", content: "hello from the browser test" }] });
    expect(res.status).toBe(200);
    const id = res.headers.get("x-generation-id")!;
    await res.json();
    await page.goto(`${gateway.origin}/admin#generations`);
    // The usage ledger writes within a fraction of a second: ask again until the row is there.
    const details = page.locator(`button[data-generation="${id}"]`);
    for (let i = 0; i < 50 && (await details.count()) === 0; i++) {
      await page.getByRole("button", { name: "Show" }).click();
      await Bun.sleep(100);
    }
    await details.click();
    await page.getByRole("heading", { name: `Generation ${id}` }).waitFor();
    await page.getByRole("heading", { name: "Attempts" }).waitFor();
    expect(await page.locator(".details table").first().textContent()).toContain("simulator");
    await shot("03-generation");

    await page.goto(`${gateway.origin}/admin#usage`);
    await page.locator(".chart canvas").waitFor();
    // Ink of the first series' colour (#2563eb), not just axes and grid.
    const ink = await page.evaluate(() => {
      const canvas = (globalThis as unknown as BrowserGlobals).document.querySelector(".chart canvas")!;
      const data = canvas.getContext("2d")!.getImageData(0, 0, canvas.width, canvas.height).data;
      let hits = 0;
      for (let i = 0; i < data.length; i += 4) if (Math.abs(data[i]! - 37) < 30 && Math.abs(data[i + 1]! - 99) < 30 && Math.abs(data[i + 2]! - 235) < 30 && data[i + 3]! > 128) hits++;
      return hits;
    });
    expect(ink).toBeGreaterThan(10);
    await page.getByRole("cell", { name: "simulator/small" }).first().waitFor();
    await shot("04-usage");
  }, 30_000);

  test("requests refused for unknown models are one usage row that lists them", async () => {
    const typos = ["gpt-4o-typo", "nope/model", "simulator/smal"];
    for (const model of typos) expect((await api("/chat/completions", secret, { model, messages: [{ role: "user", content: "hi" }] })).status).toBe(400);
    // The usage ledger writes within a fraction of a second.
    for (let i = 0; i < 50; i++) {
      const { data } = await read<{ data: Array<{ group: string }> }>("/usage?group_by=model");
      if (typos.every((t) => data.some((p) => p.group === t))) break;
      await Bun.sleep(100);
    }
    await openView("usage");
    const summary = page.getByText("unknown models (3)", { exact: true });
    await summary.waitFor();
    const table = page.getByRole("table", { name: /^Usage by model/ });
    for (const model of typos) expect(await table.getByRole("cell", { name: model, exact: true }).count()).toBe(0);
    const row = table.getByRole("row").filter({ has: summary });
    expect(await row.getByRole("cell").nth(2).textContent()).toBe("3");
    await summary.click();
    const listed = await row.getByRole("listitem").allTextContents();
    expect(listed.sort()).toEqual(typos.map((t) => `${t}: 1 request`).sort());
    // A known model keeps its row, and the chart has one series for them all.
    await table.getByRole("cell", { name: "simulator/small", exact: true }).first().waitFor();
    expect(await page.locator(".u-legend .u-series .u-label").allTextContents()).toEqual(["Time", "simulator/small", "unknown models"]);
    await shot("04b-usage-unknown-models");
  }, 30_000);

  test("a batch's bar runs to completed", async () => {
    const submitted = await api("/batches", secret, {
      endpoint: "/chat/completions",
      requests: [1, 2, 3].map((n) => ({ custom_id: `r${n}`, body: { model: "simulator/small", messages: [{ role: "user", content: `item ${n}` }] } })),
    });
    expect(submitted.status).toBe(202);
    const batch = (await submitted.json()) as { id: string };
    await page.goto(`${gateway.origin}/admin#batches`);
    const card = page.locator(`article[data-batch="${batch.id}"][data-status="completed"]`);
    await card.waitFor({ timeout: 15_000 });
    const segments = card.locator(".bar .segment");
    expect(await segments.count()).toBe(1);
    expect(await segments.first().getAttribute("data-segment")).toBe("completed");
    expect(await segments.first().getAttribute("data-count")).toBe("3");
    expect(await card.locator(".legend").textContent()).toBe("3 completed0 failed0 not run3 in all");
    await card.getByRole("button", { name: `Results of ${batch.id}` }).click();
    await page.getByRole("heading", { name: `Results of ${batch.id}` }).waitFor();
    expect(await page.locator("section[aria-label='Batch results'] pre").textContent()).toContain("r3");
    await shot("05-batch");
  }, 30_000);

  test("a batch with failed and pending requests shows the three apart, each as wide as its count", async () => {
    const item = (id: string, content: string) => ({ custom_id: id, body: { model: "simulator/small", messages: [{ role: "user", content }] } });
    // Two answer, two fail (the simulator answers 400 and 500), one is held for a minute (still pending meanwhile).
    const submitted = await api("/batches", secret, {
      endpoint: "/chat/completions",
      requests: [item("ok1", "one"), item("ok2", "two"), item("bad1", "[sim status=400]"), item("bad2", "[sim status=500]"), item("slow", "[sim latency=60000]")],
    });
    expect(submitted.status).toBe(202);
    const batch = (await submitted.json()) as { id: string };
    await openView("batches");
    const card = page.locator(`article[data-batch="${batch.id}"]`);
    await card.locator('.segment[data-segment="failed"][data-count="2"]').waitFor({ timeout: 15_000 });
    await card.locator('.segment[data-segment="completed"][data-count="2"]').waitFor();
    const segments = card.locator(".bar .segment");
    expect(await segments.count()).toBe(3);
    expect(await Promise.all([0, 1, 2].map((i) => segments.nth(i).getAttribute("data-segment")))).toEqual(["completed", "failed", "pending"]);
    expect(await Promise.all([0, 1, 2].map((i) => segments.nth(i).getAttribute("data-count")))).toEqual(["2", "2", "1"]);
    // Drawn apart: three colours, widths in proportion to 2 : 2 : 1.
    const colours = await Promise.all([0, 1, 2].map((i) => segments.nth(i).evaluate((el) => (globalThis as unknown as BrowserGlobals).getComputedStyle(el).backgroundColor)));
    expect(new Set(colours).size).toBe(3);
    const widths = await Promise.all([0, 1, 2].map(async (i) => (await segments.nth(i).boundingBox())!.width));
    expect(Math.abs(widths[0]! - widths[1]!)).toBeLessThan(2);
    expect(Math.abs(widths[0]! - 2 * widths[2]!)).toBeLessThan(3);
    expect(await segments.nth(1).getAttribute("title")).toBe("2 failed");
    expect(await card.locator(".legend").textContent()).toBe("2 completed2 failed1 pending5 in all");
    expect(await card.getByRole("img").getAttribute("aria-label")).toBe(`${batch.id}: 2 completed, 2 failed, 1 pending, 5 in all`);
    const counts = ((await read<{ request_counts: Record<string, number> }>(`/batches/${batch.id}`)).request_counts);
    expect(counts).toEqual({ completed: 2, failed: 2, total: 5 });
    await shot("05b-batch-failed");
  }, 30_000);

  test("two preset versions diff", async () => {
    const body = (temperature: number) => ({ model: "simulator/small", temperature, messages: [{ role: "system", content: "Be brief." }] });
    expect((await api("/presets/support-bot/chat/completions", ADMIN, body(0.2))).status).toBeLessThan(300);
    expect((await api("/presets/support-bot/chat/completions", ADMIN, body(0.7))).status).toBeLessThan(300);
    await page.goto(`${gateway.origin}/admin#presets`);
    await page.getByLabel("To version").locator("option").nth(1).waitFor({ state: "attached" });
    await page.getByLabel("From version").selectOption("1");
    await page.getByLabel("To version").selectOption("2");
    await page.getByRole("button", { name: "Compare" }).click();
    await page.locator(".diff .added").first().waitFor();
    const added = await page.locator(".diff .added").allTextContents();
    const removed = await page.locator(".diff .removed").allTextContents();
    expect(added).toHaveLength(1);
    expect(removed).toHaveLength(1);
    expect(added[0]).toMatch(/^\+ +"temperature": 0\.7,?\n$/);
    expect(removed[0]).toMatch(/^- +"temperature": 0\.2,?\n$/);
    await shot("06-preset-diff");
  }, 30_000);

  test("guardrails: create, edit, assign to a key and to the workspace, delete (checked through the API)", async () => {
    interface Guardrail {
      id: string;
      name: string;
      [field: string]: unknown;
    }
    const listed = async () => (await read<{ data: Guardrail[] }>("/guardrails")).data;
    const browserKey = (await read<{ data: Array<{ hash: string; name: string }> }>("/keys")).data.find((k) => k.name === "browser key")!;
    await page.goto(`${gateway.origin}/admin#guardrails`);
    await page.getByRole("heading", { name: "Guardrails" }).waitFor();
    await page.getByText("No guardrails yet.").waitFor();
    expect(await page.getByRole("link", { name: "Guardrails" }).getAttribute("aria-current")).toBe("page");

    // A pattern the API refuses: its reason is shown, nothing is created.
    await page.getByLabel("Name", { exact: true }).fill("no-secrets");
    await page.getByRole("button", { name: "Add a pattern" }).click();
    await page.getByLabel("Pattern 1", { exact: true }).fill("(unclosed");
    await page.getByRole("button", { name: "Create guardrail" }).click();
    await page.getByText(/^Not saved: content_filters\[0\]\.pattern[ :]/).waitFor();
    expect(await listed()).toEqual([]);

    await page.getByLabel("Pattern 1", { exact: true }).fill("secret-[0-9]+");
    await page.getByLabel("Label of pattern 1").fill("codes");
    await page.getByLabel("Description").fill("No codes leave");
    await page.getByLabel("Budget (USD)").fill("2.5");
    await page.getByLabel("Budget resets").selectOption("monthly");
    await page.getByLabel("email", { exact: true }).selectOption("redact");
    await page.getByLabel("Allowed models").fill("simulator/*, openai/gpt-4o");
    await page.getByRole("button", { name: "Create guardrail" }).click();
    await page.getByRole("heading", { name: "Edit no-secrets" }).waitFor();
    await page.getByRole("cell", { name: "no-secrets", exact: true }).waitFor();
    const [created] = await listed();
    expect(created).toMatchObject({
      name: "no-secrets",
      description: "No codes leave",
      limit_usd: 2.5,
      reset_interval: "monthly",
      apply_to: "input",
      allowed_models: ["simulator/*", "openai/gpt-4o"],
      ignored_models: null,
      content_filters: [{ pattern: "secret-[0-9]+", action: "block", label: "codes" }],
      content_filter_builtins: [{ slug: "email", action: "redact" }],
    });
    await shot("09-guardrail-created");

    // Edit: the form shows what was saved; change detectors, add a pattern, drop the first, clear the model list.
    expect(await page.getByLabel("Pattern 1", { exact: true }).inputValue()).toBe("secret-[0-9]+");
    await page.getByLabel("Filters check").selectOption("both");
    await page.getByLabel("email", { exact: true }).selectOption("block");
    await page.getByLabel("secrets", { exact: true }).selectOption("flag");
    await page.getByRole("button", { name: "Add a pattern" }).click();
    await page.getByLabel("Pattern 2", { exact: true }).fill("jul[a-z]+");
    await page.getByLabel("Action of pattern 2").selectOption("redact");
    await page.getByRole("button", { name: "Remove pattern 1" }).click();
    await page.getByLabel("Allowed models").fill("");
    await page.getByRole("button", { name: "Save changes" }).click();
    await page.getByText("no-secrets saved.").waitFor();
    const edited = (await read<{ data: Guardrail }>(`/guardrails/${created!.id}`)).data;
    expect(edited).toMatchObject({
      name: "no-secrets",
      limit_usd: 2.5,
      apply_to: "both",
      allowed_models: null,
      content_filters: [{ pattern: "jul[a-z]+", action: "redact", label: null }],
      content_filter_builtins: [
        { slug: "email", action: "block" },
        { slug: "secrets", action: "flag" },
      ],
    });

    // Assign to the browser key: its requests are now checked (an email is blocked); unassign: they pass again.
    const mailing = () => api("/chat/completions", secret, { model: "simulator/small", messages: [{ role: "user", content: "write to ana@example.com" }] });
    expect((await mailing()).status).toBe(200);
    const keyBox = page.getByRole("checkbox", { name: /^browser key \(/ });
    await keyBox.check();
    await page.getByText("no-secrets assigned to browser key").waitFor();
    const assigned = await read<{ data: Array<{ key_hash: string }> }>(`/guardrails/${created!.id}/assignments/keys`);
    expect(assigned.data.map((a) => a.key_hash)).toEqual([browserKey.hash]);
    await page.getByRole("cell", { name: "browser key", exact: true }).waitFor();
    expect((await mailing()).status).toBe(403);
    await shot("10-guardrail-assigned");
    await keyBox.uncheck();
    await page.getByText("no-secrets removed from browser key").waitFor();
    expect((await read<{ data: unknown[] }>(`/guardrails/${created!.id}/assignments/keys`)).data).toEqual([]);
    expect((await mailing()).status).toBe(200);

    // The whole workspace (the API's stand-in for members), then not.
    const everyKey = page.getByRole("checkbox", { name: "every key of this workspace" });
    await everyKey.check();
    await page.getByText("no-secrets assigned to every key of this workspace.").waitFor();
    expect((await read<{ total_count: number }>(`/guardrails/${created!.id}/assignments/workspace`)).total_count).toBe(1);
    await page.getByRole("cell", { name: "every key", exact: true }).waitFor();
    await everyKey.uncheck();
    await page.getByText("no-secrets removed from every key of this workspace.").waitFor();
    expect((await read<{ total_count: number }>(`/guardrails/${created!.id}/assignments/workspace`)).total_count).toBe(0);

    // A second one, deleted from the list after the confirmation.
    await page.getByRole("button", { name: "New guardrail" }).click();
    await page.getByLabel("Name", { exact: true }).fill("short-lived");
    await page.getByRole("button", { name: "Create guardrail" }).click();
    await page.getByRole("heading", { name: "Edit short-lived" }).waitFor();
    expect((await listed()).map((g) => g.name).sort()).toEqual(["no-secrets", "short-lived"]);
    page.once("dialog", (dialog) => void dialog.accept());
    await page.getByRole("button", { name: "Delete short-lived" }).click();
    await page.getByText("short-lived deleted.").waitFor();
    await page.getByRole("heading", { name: "New guardrail" }).waitFor();
    expect((await listed()).map((g) => g.name)).toEqual(["no-secrets"]);
  }, 60_000);

  test("the workspace's live containers are listed; one opens to its files", async () => {
    // The simulator calls service:shell when offered it: a container of the default workspace.
    const ran = await api("/responses", secret, { model: "simulator/small", input: "run it", tools: [{ type: "service:shell" }] });
    expect(ran.status).toBe(200);
    const item = ((await ran.json()) as { output: Array<Record<string, unknown>> }).output.find((o) => o.type === "service:shell");
    const containerId = String(item?.container_id);
    expect(containerId).toMatch(/^ctr_/);
    await page.goto(`${gateway.origin}/admin#containers`);
    const open = page.getByRole("button", { name: `Files of ${containerId}` });
    await open.waitFor();
    expect(await page.getByRole("table", { name: "Live containers" }).textContent()).toContain(containerId);
    await open.click();
    await page.getByText(`files in ${containerId}.`).or(page.getByText(`file in ${containerId}.`)).waitFor();
    expect(await page.getByLabel("Container id").inputValue()).toBe(containerId);
    await shot("07-containers");
  }, 30_000);

  test("an unknown fragment says there is no such view instead of showing another", async () => {
    await page.goto(`${gateway.origin}/admin#guardrail`);
    await page.getByRole("heading", { name: "No such view" }).waitFor();
    await page.getByText('There is no view named "#guardrail".').waitFor();
    expect(await page.getByRole("heading", { name: "Keys" }).count()).toBe(0);
    expect(await page.locator('nav a[aria-current="page"]').count()).toBe(0);
    expect(await page.title()).toBe("No such view · Gateway admin");
    await page.getByRole("main").getByRole("link", { name: "Guardrails" }).click();
    await page.getByRole("heading", { name: "Guardrails" }).waitFor();
  }, 30_000);

  test("no view breaks the Content-Security-Policy; an inline script is refused and reported", async () => {
    const views: Array<[string, string]> = [
      ["keys", "Keys"],
      ["usage", "Usage"],
      ["generations", "Generations"],
      ["batches", "Batches"],
      ["presets", "Presets"],
      ["guardrails", "Guardrails"],
      ["containers", "Containers"],
    ];
    for (const [id, title] of views) {
      await page.goto(`${gateway.origin}/admin#${id}`);
      await page.getByRole("heading", { name: title, exact: true }).waitFor();
      if (id === "usage") await page.locator(".chart canvas").waitFor();
      if (id === "guardrails") await page.getByRole("button", { name: "Edit no-secrets" }).click();
      await page.waitForLoadState("networkidle");
    }
    // Everything the earlier tests did ran under the policy too.
    expect(violations).toEqual([]);
    // The policy holds and the listener hears it: an injected inline script does not run and is reported.
    await page.evaluate(`(() => { const s = document.createElement("script"); s.textContent = "window.inlineRan = true"; document.body.append(s); })()`);
    for (let i = 0; i < 50 && violations.length === 0; i++) await Bun.sleep(20);
    expect(await page.evaluate("window.inlineRan === true")).toBe(false);
    expect(violations.some((v) => v.startsWith("script-src"))).toBe(true);
  }, 60_000);

  test("readable on a phone; the binary exported spans of these requests", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${gateway.origin}/admin#keys`);
    await page.getByRole("heading", { name: "Keys" }).waitFor();
    // Nothing wider than the screen but the tables' own scroll areas.
    expect(await page.evaluate(() => (globalThis as unknown as BrowserGlobals).document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await shot("08-phone");
    const spans = await collector.waitFor(3, 10_000);
    expect(spans.some((s) => s.name === "POST /chat/completions")).toBe(true);
    expect(spans.some((s) => s.name === "batch item")).toBe(true);
  }, 30_000);
});
