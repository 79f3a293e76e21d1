/**
 * The admin page in a real browser (issue 21), against the compiled binary on a real port: a wrong key is refused;
 * sign in; create a key and copy its secret; a request with it shows in the generation log (with its attempts) and
 * in the usage plot (the series has ink); a batch's progress bar runs to completed; two preset versions diff; the
 * live containers are listed and one opens to its files. The
 * binary runs with tracing on, so the same run shows its embedded tracing SDK exporting to a loopback collector.
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

const api = (path: string, key: string, json?: unknown) =>
  fetch(`${gateway.base}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${key}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });

/** The few browser globals the page-side callbacks use (this project's types have no DOM library). */
interface BrowserGlobals {
  navigator: { clipboard: { readText(): Promise<string> } };
  document: {
    documentElement: { scrollWidth: number };
    querySelector(selector: string): { width: number; height: number; getContext(kind: "2d"): { getImageData(x: number, y: number, w: number, h: number): { data: Uint8ClampedArray } } | null } | null;
  };
}

const shot = (name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

suite("admin page (compiled binary, headless Chromium)", () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    collector = startOtlpCollector();
    gateway = await startBinaryGateway({
      adminKey: ADMIN,
      config: { batches: { poll_interval_ms: 50 }, tracing: { endpoint: collector.url, delay_ms: 20 } },
    });
    browser = await chromium.launch({ executablePath: executablePath!, args: ["--no-sandbox"] });
    const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: gateway.origin });
    page = await context.newPage();
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

  test("a batch's progress bar runs to completed", async () => {
    const submitted = await api("/batches", secret, {
      endpoint: "/chat/completions",
      requests: [1, 2, 3].map((n) => ({ custom_id: `r${n}`, body: { model: "simulator/small", messages: [{ role: "user", content: `item ${n}` }] } })),
    });
    expect(submitted.status).toBe(202);
    const batch = (await submitted.json()) as { id: string };
    await page.goto(`${gateway.origin}/admin#batches`);
    const card = page.locator(`article[data-batch="${batch.id}"][data-status="completed"]`);
    await card.waitFor({ timeout: 15_000 });
    const bar = card.locator("progress");
    expect(await bar.getAttribute("value")).toBe("3");
    expect(await bar.getAttribute("max")).toBe("3");
    await card.getByRole("button", { name: `Results of ${batch.id}` }).click();
    await page.getByRole("heading", { name: `Results of ${batch.id}` }).waitFor();
    expect(await page.locator("section[aria-label='Batch results'] pre").textContent()).toContain("r3");
    await shot("05-batch");
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
