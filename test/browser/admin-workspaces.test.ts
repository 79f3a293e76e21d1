/**
 * The admin page's workspace switcher in a real browser, against the compiled binary on a real port: the operator
 * sees a select of every workspace, and choosing one makes the page's management calls name it (`workspace_id=`), so
 * its lists show that workspace's objects and no other's; a workspace's own management key gets no switcher and sees
 * only its own workspace. No view breaks the Content-Security-Policy meanwhile. Skipped, saying why, without Chromium.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { chromium, type Browser, type Page } from "playwright-core";
import { startBinaryGateway, type BinaryGateway } from "../support/binary-gateway.ts";
import { chromiumPath } from "../support/chromium.ts";

const executablePath = chromiumPath();
if (!executablePath) console.log("browser tests skipped: no Chromium found (apt-get install -y chromium-headless-shell, or set CHROMIUM_PATH)");
const suite = executablePath ? describe : describe.skip;

const ADMIN = "admin-switcher-test-key-0123456789";
type Json = Record<string, any>;

let gateway: BinaryGateway;
let browser: Browser;
let team: { id: string; manager: string };
const violations: string[] = [];

const api = async (path: string, json?: unknown): Promise<Json> => {
  const response = await fetch(`${gateway.base}${path}`, {
    method: json === undefined ? "GET" : "POST",
    headers: { authorization: `Bearer ${ADMIN}`, ...(json === undefined ? {} : { "content-type": "application/json" }) },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  expect(response.ok).toBe(true);
  return (await response.json()) as Json;
};

const REPORT_VIOLATIONS = `document.addEventListener("securitypolicyviolation", (e) => window.reportCspViolation(e.effectiveDirective + " blocked " + (e.blockedURI || "inline")));`;

/** A fresh tab (its own sessionStorage) signed in with `key`, on the keys view. */
async function signedIn(key: string): Promise<Page> {
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  await context.exposeFunction("reportCspViolation", (what: string) => violations.push(what));
  await context.addInitScript({ content: REPORT_VIOLATIONS });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(`${gateway.origin}/admin`);
  await page.getByLabel("Management key").fill(key);
  const listed = page.waitForResponse((r) => r.url().includes("/api/v1/workspaces"));
  await page.getByRole("button", { name: "Sign in" }).click();
  await page.getByRole("heading", { name: "Keys" }).waitFor();
  await listed;
  return page;
}

suite("admin page workspace switcher (compiled binary, headless Chromium)", () => {
  beforeAll(async () => {
    gateway = await startBinaryGateway({ adminKey: ADMIN, config: {} });
    browser = await chromium.launch({ executablePath: executablePath!, args: ["--no-sandbox"] });
    const made = await api("/workspaces", { name: "Team", slug: "team" });
    const id = made.data.id as string;
    await api("/keys", { name: "team-only key", workspace_id: id });
    await api("/keys", { name: "default-only key" });
    const manager = await api("/keys", { name: "team manager", workspace_id: id, is_management_key: true });
    team = { id, manager: manager.key as string };
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await gateway?.stop();
  });

  test("the operator picks a workspace: the page's calls name it and its lists show that workspace's objects only", async () => {
    const page = await signedIn(ADMIN);
    const switcher = page.getByLabel("Workspace", { exact: true });
    await switcher.waitFor();
    expect(await switcher.locator("option").allTextContents()).toEqual(expect.arrayContaining(["default", "Team (team)"]));
    await page.getByRole("cell", { name: "default-only key", exact: true }).waitFor();
    expect(await page.getByRole("cell", { name: "team-only key", exact: true }).count()).toBe(0);

    const named = page.waitForRequest((r) => r.url().includes("/api/v1/keys") && r.url().includes(`workspace_id=${team.id}`));
    await switcher.selectOption(team.id);
    await named;
    await page.getByRole("cell", { name: "team-only key", exact: true }).waitFor();
    expect(await page.getByRole("cell", { name: "default-only key", exact: true }).count()).toBe(0);

    // The choice holds across reloads of this tab; back to the default workspace, its objects return.
    await page.reload();
    await page.getByRole("cell", { name: "team-only key", exact: true }).waitFor();
    expect(await page.getByLabel("Workspace", { exact: true }).inputValue()).toBe(team.id);
    await page.getByLabel("Workspace", { exact: true }).selectOption({ label: "default" });
    await page.getByRole("cell", { name: "default-only key", exact: true }).waitFor();
    expect(await page.getByRole("cell", { name: "team-only key", exact: true }).count()).toBe(0);
    await page.context().close();
  }, 60_000);

  test("a workspace's own manager gets no switcher and sees only its workspace", async () => {
    const page = await signedIn(team.manager);
    await page.getByRole("cell", { name: "team-only key", exact: true }).waitFor();
    expect(await page.getByLabel("Workspace", { exact: true }).count()).toBe(0);
    expect(await page.locator("select").filter({ hasText: "default" }).count()).toBe(0);
    expect(await page.getByRole("cell", { name: "default-only key", exact: true }).count()).toBe(0);
    expect(await page.evaluate(() => sessionStorage.getItem("gateway-admin-workspace"))).toBeNull();
    await page.context().close();
  }, 60_000);

  test("no Content-Security-Policy violation on the way", () => {
    expect(violations).toEqual([]);
  });
});
