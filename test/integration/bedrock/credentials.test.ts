/**
 * Bedrock credentials as a deployed gateway finds them (`bun server.ts` as a child process, its environment and a
 * shared credentials file of its own, the fake Bedrock checking every signature): with nothing in the config, the
 * standard AWS sources in order — `AWS_BEARER_TOKEN_BEDROCK`, the access keys of the environment, the profile of
 * the shared credentials file; a session AWS refuses as expired is read again from the file, so a refreshed file is
 * used without a restart; a bad entry (no region, no credentials anywhere) stops start-up naming the field; and no
 * secret ever appears in a log line or an error body.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { API_KEY, EXPIRED_KEY, REGION, SESSION_KEY, STATIC_KEY, type AccessKey } from "../../support/fake-bedrock/identities.ts";
import { startFakeBedrock, type FakeBedrock } from "../../support/fake-bedrock/server.ts";
import { spawnGatewayChild, type GatewayChild } from "../../support/gateway-process.ts";

const ADMIN = "bedrock-credentials-admin-key-0123";
const MODEL = "us.anthropic.claude-sonnet-4-5-20250929-v1:0";
/** Every secret the gateway may hold here: none may appear in what it logs or answers. */
const SECRETS = [STATIC_KEY.secretAccessKey, SESSION_KEY.secretAccessKey, SESSION_KEY.sessionToken!, EXPIRED_KEY.secretAccessKey, EXPIRED_KEY.sessionToken!, API_KEY];
/** The ambient AWS variables of whoever runs the tests, emptied (an empty value counts as unset). */
const NO_AMBIENT = { AWS_ACCESS_KEY_ID: "", AWS_SECRET_ACCESS_KEY: "", AWS_SESSION_TOKEN: "", AWS_BEARER_TOKEN_BEDROCK: "", AWS_PROFILE: "", AWS_CREDENTIAL_EXPIRATION: "" };

const answer = { output: { message: { role: "assistant", content: [{ text: "Paris." }] } }, stopReason: "end_turn", usage: { inputTokens: 12, outputTokens: 2, totalTokens: 14 }, metrics: { latencyMs: 90 } };

let fake: FakeBedrock;
let dir: string;
const children: GatewayChild[] = [];
beforeAll(async () => {
  fake = await startFakeBedrock({ respond: () => ({ kind: "converse", body: answer }) });
  dir = mkdtempSync(join(tmpdir(), "gw-bedrock-creds-"));
});
afterAll(async () => {
  await Promise.all(children.map((c) => c.kill()));
  await fake.stop();
});
beforeEach(() => fake.reset());

function configFile(name: string, provider: Record<string, unknown>): string {
  const path = join(dir, `${name}.json`);
  const entry = { id: "aws", adapter: "bedrock", base_url: fake.origin, models: [{ id: "aws/claude", upstream_model: MODEL }], ...provider };
  writeFileSync(path, JSON.stringify({ providers: [entry], routing: { max_retries: 0 } }));
  return path;
}

function credentialsFile(name: string, profile: string, key: AccessKey): string {
  const path = join(dir, name);
  writeFileSync(path, `[${profile}]\naws_access_key_id = ${key.accessKeyId}\naws_secret_access_key = ${key.secretAccessKey}\n${key.sessionToken ? `aws_session_token = ${key.sessionToken}\n` : ""}`);
  return path;
}

function start(config: string, env: Record<string, string>): GatewayChild {
  const child = spawnGatewayChild({ ...NO_AMBIENT, HOME: dir, GATEWAY_ADMIN_KEY: ADMIN, GATEWAY_CONFIG: config, DATABASE_URL: "sqlite://:memory:", LOG_LEVEL: "debug", ...env });
  children.push(child);
  return child;
}

const keys = new Map<string, string>();

/** An inference key of that gateway (made once with the admin key). */
async function keyOf(base: string): Promise<string> {
  let key = keys.get(base);
  if (key === undefined) {
    const res = await fetch(`${base}/keys`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ name: "bedrock" }) });
    key = ((await res.json()) as { key: string }).key;
    keys.set(base, key);
  }
  return key;
}

async function ask(base: string): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${await keyOf(base)}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "aws/claude", messages: [{ role: "user", content: "Capital of France?" }] }),
  });
  return { status: res.status, text: await res.text() };
}

function expectNoSecret(texts: string[]): void {
  for (const text of texts) for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe("no credentials in the config: the standard AWS sources", () => {
  test("the profile of the shared credentials file; an expired session is read again once the file is refreshed", async () => {
    const file = credentialsFile("credentials-refresh", "work", EXPIRED_KEY);
    const gw = start(configFile("profile", { region: REGION }), { AWS_SHARED_CREDENTIALS_FILE: file, AWS_PROFILE: "work" });
    const base = await gw.base();
    const refused = await ask(base);
    expect(refused.status).toBe(502);
    expect(fake.last().auth).toBeUndefined();
    // A tool refreshes the session on disk; the next request reads it (AWS's refusal made the gateway look again).
    credentialsFile("credentials-refresh", "work", SESSION_KEY);
    const served = await ask(base);
    expect(served.status).toBe(200);
    expect(fake.last().auth).toEqual({ kind: "sigv4", accessKeyId: SESSION_KEY.accessKeyId });
    expect(fake.last().headers["x-amz-security-token"]).toBe(SESSION_KEY.sessionToken!);
    expectNoSecret([refused.text, served.text, ...gw.lines, gw.stderr()]);
  }, 40_000);

  test("the environment's access keys, then a Bedrock API key before them", async () => {
    const keys = start(configFile("env", { region: REGION }), { AWS_ACCESS_KEY_ID: SESSION_KEY.accessKeyId, AWS_SECRET_ACCESS_KEY: SESSION_KEY.secretAccessKey, AWS_SESSION_TOKEN: SESSION_KEY.sessionToken! });
    expect((await ask(await keys.base())).status).toBe(200);
    expect(fake.last().auth).toEqual({ kind: "sigv4", accessKeyId: SESSION_KEY.accessKeyId });
    const bearer = start(configFile("bearer", { region: REGION }), { AWS_BEARER_TOKEN_BEDROCK: API_KEY, AWS_ACCESS_KEY_ID: STATIC_KEY.accessKeyId, AWS_SECRET_ACCESS_KEY: STATIC_KEY.secretAccessKey });
    expect((await ask(await bearer.base())).status).toBe(200);
    expect(fake.last().auth).toEqual({ kind: "api-key" });
    expectNoSecret([...keys.lines, ...bearer.lines, keys.stderr(), bearer.stderr()]);
  }, 40_000);
});

describe("a bad entry stops start-up, naming the field", () => {
  async function refusal(config: string, env: Record<string, string> = {}): Promise<string> {
    const gw = start(config, env);
    const code = await Promise.race([gw.child.exited, Bun.sleep(20_000).then(() => -1)]);
    expect(code).not.toBe(0);
    expect(code).not.toBe(-1);
    return gw.stderr() + gw.lines.join("\n");
  }

  test("no region", async () => {
    const out = await refusal(configFile("no-region", { credentials: { access_key_id: STATIC_KEY.accessKeyId, secret_access_key: STATIC_KEY.secretAccessKey } }));
    expect(out).toContain('invalid config field "providers[0].region"');
    expectNoSecret([out]);
  }, 30_000);

  test("no credentials anywhere", async () => {
    const out = await refusal(configFile("nothing", { region: REGION }), { AWS_SHARED_CREDENTIALS_FILE: join(dir, "missing-credentials") });
    expect(out).toContain('invalid config field "providers[0].credentials"');
    expect(out).toContain("AWS_ACCESS_KEY_ID");
  }, 30_000);

  test("a credential's environment variable unset", async () => {
    const out = await refusal(configFile("unset-env", { region: REGION, credentials: { access_key_id: { env: "GW_TEST_AWS_KEY_ID" }, secret_access_key: { env: "GW_TEST_AWS_SECRET" } } }), { GW_TEST_AWS_KEY_ID: STATIC_KEY.accessKeyId });
    expect(out).toContain('invalid config field "providers[0].credentials.secret_access_key": environment variable GW_TEST_AWS_SECRET is not set');
  }, 30_000);
});
