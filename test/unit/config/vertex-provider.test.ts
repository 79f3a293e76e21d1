/**
 * core/config/vertex-provider.ts through core/config/load.ts and the catalog: the Google Vertex AI fields of a
 * provider entry — credentials from a key file, the key's JSON (inline or in a variable), a token or
 * GOOGLE_APPLICATION_CREDENTIALS; the project from the entry or the key; the location as the region; a model's
 * publisher — and the refusals that stop start-up naming the field, with no key material in them.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { buildRegistry } from "../../../core/bootstrap.ts";
import type { ConfigFile } from "../../../core/config/file-schema.ts";
import { buildConfig, validateConfigFile } from "../../../core/config/load.ts";
import { buildCatalog } from "../../../core/routing/catalog.ts";
import { makeServiceAccount } from "../../support/fake-vertex/google-oauth.ts";

type Provider = NonNullable<ConfigFile["providers"]>[number];

const dir = mkdtempSync(join(tmpdir(), "vertex-config-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const account = makeServiceAccount("acme-from-key", "https://oauth2.googleapis.com/token");
writeFileSync(join(dir, "key.json"), JSON.stringify(account.keyFile));
writeFileSync(join(dir, "not-json.json"), "{ nope");

const vertex = (fields: Partial<Provider>): Provider => ({
  id: "gcp",
  adapter: "vertex",
  location: "us-central1",
  models: [{ id: "gcp/gemini", upstream_model: "gemini-2.5-flash" }],
  ...fields,
});

const build = (provider: Provider, env: Record<string, string> = {}) => buildConfig(validateConfigFile({ providers: [provider] }), env, dir).providers[0]!;

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return (error as Error).message;
  }
  throw new Error("expected a refusal");
}

describe("vertex provider entries", () => {
  test("a key file relative to the config: read at start-up, its project the default, the location shown as the region", () => {
    const provider = build(vertex({ credentials: { service_account_file: "key.json" } }));
    expect(provider.region).toBe("us-central1");
    expect(provider.credentials).toBeUndefined();
    expect(provider.options).toMatchObject({ project: "acme-from-key", location: "us-central1", service_account: { client_email: account.keyFile.client_email, token_uri: "https://oauth2.googleapis.com/token" } });
    expect(build(vertex({ project: "acme-other", credentials: { service_account_file: join(dir, "key.json") } })).options.project).toBe("acme-other");
  });

  test("the key's JSON inline or from a variable, a token from a variable, GOOGLE_APPLICATION_CREDENTIALS when nothing is given", () => {
    expect(build(vertex({ credentials: { service_account: account.keyFile } })).options.service_account).toMatchObject({ client_email: account.keyFile.client_email });
    const fromEnv = build(vertex({ credentials: { service_account: { env: "GCP_KEY_JSON" } } }), { GCP_KEY_JSON: JSON.stringify(account.keyFile) });
    expect(fromEnv.options.project).toBe("acme-from-key");
    const token = build(vertex({ project: "p", credentials: { access_token: { env: "VERTEX_TOKEN" } }, token_url: "http://127.0.0.1:9/token" }), { VERTEX_TOKEN: "ya29.t" });
    expect(token.options).toMatchObject({ project: "p", access_token: "ya29.t", token_url: "http://127.0.0.1:9/token" });
    expect(build(vertex({}), { GOOGLE_APPLICATION_CREDENTIALS: join(dir, "key.json") }).options.project).toBe("acme-from-key");
    expect(build(vertex({ project: "p", credentials: { metadata_server: true } })).options).toMatchObject({ project: "p", metadata_server: true });
    expect(refusal(() => build(vertex({ credentials: { metadata_server: true } })))).toBe('invalid config field "providers[0].project": required');
  });

  test("a model's publisher travels to the adapter keyed by its upstream model; location global", () => {
    const provider = build(vertex({ location: "global", project: "p", credentials: { access_token: "t" }, models: [{ id: "gcp/c", upstream_model: "my-tuned-claude", publisher: "anthropic" }] }));
    expect(provider.options.publishers).toEqual({ "my-tuned-claude": "anthropic" });
    expect(provider.region).toBe("global");
  });

  test("bad entries stop start-up naming the field, and quote no key material", () => {
    expect(refusal(() => build(vertex({ location: undefined, credentials: { access_token: "t" }, project: "p" })))).toBe('invalid config field "providers[0].location": required by the "vertex" adapter (e.g. us-central1 or global)');
    expect(refusal(() => build(vertex({})))).toContain('"providers[0].credentials": the "vertex" adapter needs service_account_file');
    expect(refusal(() => build(vertex({ credentials: { service_account_file: "missing.json" } })))).toMatch(/^invalid config field "providers\[0\]\.credentials\.service_account_file": the service-account key file .*missing\.json cannot be read \(ENOENT\)$/);
    expect(refusal(() => build(vertex({ credentials: { service_account_file: "not-json.json" } })))).toBe('invalid config field "providers[0].credentials.service_account_file": the service-account key is not JSON');
    expect(refusal(() => build(vertex({ credentials: { access_token: "t" } })))).toBe('invalid config field "providers[0].project": required');
    expect(refusal(() => build(vertex({ project: "p", credentials: { access_token: "t", service_account_file: "key.json" } })))).toContain("give one of");
    const user = refusal(() => build(vertex({ credentials: { service_account: { type: "authorized_user", client_id: "x", refresh_token: "secret-refresh" } } })));
    expect(user).toContain('a key of type "authorized_user" is not a service-account key');
    expect(user).not.toContain("secret-refresh");
    expect(refusal(() => build(vertex({ project: "p", api_key: "k", credentials: { access_token: "t" } })))).toContain('"providers[0].api_key"');
  });

  test("the Vertex fields on another adapter are refused", () => {
    const openai = { id: "o", adapter: "openai", base_url: "https://api.example.com/v1", api_key: "k", models: [{ id: "o/m" }] };
    expect(refusal(() => build({ ...openai, project: "p" }))).toBe('invalid config field "providers[0].project": only the "vertex" adapter takes it');
    expect(refusal(() => build({ ...openai, models: [{ id: "o/m", publisher: "google" }] }))).toBe('invalid config field "providers[0].models[0].publisher": only the "vertex" adapter takes it');
    expect(refusal(() => build({ ...openai, adapter: "bedrock", region: "us-east-1", credentials: { access_token: "t" } }))).toContain("only the \"vertex\" adapter takes it");
  });

  test("the catalog: the base URL from the location; a private key that is not one stops start-up naming the field", async () => {
    const config = buildConfig(validateConfigFile({ providers: [vertex({ credentials: { service_account_file: "key.json" } })] }), {}, dir);
    const catalog = buildCatalog(config.providers, await buildRegistry(config));
    expect(catalog.get("gcp/gemini")?.endpoints[0]?.target.baseUrl).toBe("https://us-central1-aiplatform.googleapis.com");
    const broken = { ...account.keyFile, private_key: "-----BEGIN PRIVATE KEY-----\nAAAA-not-a-key\n-----END PRIVATE KEY-----\n" };
    const bad = buildConfig(validateConfigFile({ providers: [vertex({ credentials: { service_account: broken } })] }), {}, dir);
    const message = refusal(() => buildCatalog(bad.providers, registry));
    expect(message).toBe('invalid config field "providers[0].credentials.service_account.private_key": not a PEM private key');
  });
});

const registry = await buildRegistry(buildConfig(validateConfigFile({ providers: [] }), {}, dir));

test("the README's Google Vertex AI example loads as written: both providers, their options accepted by the adapter", async () => {
  const readme = readFileSync(resolve(import.meta.dir, "../../../README.md"), "utf8");
  const section = readme.slice(readme.indexOf("### Google Vertex AI"));
  const json = /```json\n([\s\S]*?)\n```/.exec(section)![1]!;
  writeFileSync(join(dir, "gcp-key.json"), JSON.stringify(account.keyFile));
  const config = buildConfig(validateConfigFile(JSON.parse(json)), { VERTEX_ACCESS_TOKEN: "ya29.t" }, dir);
  expect(config.providers.map((p) => [p.id, p.region])).toEqual([
    ["gcp", "us-east5"],
    ["gcp-global", "global"],
  ]);
  const catalog = buildCatalog(config.providers, await buildRegistry(config));
  expect(catalog.get("gcp/claude-sonnet")?.endpoints[0]?.target.baseUrl).toBe("https://us-east5-aiplatform.googleapis.com");
  expect(catalog.get("gcp/gemini-pro")?.endpoints[0]?.target.baseUrl).toBe("https://aiplatform.googleapis.com");
  expect(catalog.get("gcp/gemini-flash")?.endpoints[0]?.target.options).toMatchObject({ project: "my-project", location: "us-east5" });
});
