/**
 * Bedrock secrets stay where they belong: the access keys and API key of the config reach only the signature (and
 * the bearer header); they never show in a log line at the most verbose level, an error body (whatever AWS answers,
 * even a message quoting the key), or what the admin page reads (`/providers`, `/models`, a model's endpoints, which
 * do show the region).
 */
import { afterAll, beforeAll, beforeEach, expect, test } from "bun:test";
import pino from "pino";
import { API_KEY, REGION, STATIC_KEY } from "../../support/fake-bedrock/identities.ts";
import { startFakeBedrock, type FakeBedrock } from "../../support/fake-bedrock/server.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";

const SECRETS = [STATIC_KEY.secretAccessKey, API_KEY];
const lines: string[] = [];
let fake: FakeBedrock;
let gw: TestGateway;

beforeAll(async () => {
  fake = await startFakeBedrock();
  gw = await startTestGateway({
    file: {
      providers: [
        { id: "aws-keys", adapter: "bedrock", region: REGION, base_url: fake.origin, credentials: { access_key_id: STATIC_KEY.accessKeyId, secret_access_key: STATIC_KEY.secretAccessKey }, models: [{ id: "aws/keys", upstream_model: "anthropic.claude-3-5-haiku-20241022-v1:0" }] },
        { id: "aws-api-key", adapter: "bedrock", region: REGION, base_url: fake.origin, api_key: API_KEY, models: [{ id: "aws/api-key", upstream_model: "amazon.nova-lite-v1:0" }] },
      ],
      routing: { max_retries: 0, breaker: { failure_threshold: 1_000_000 } },
    },
    overrides: { logger: pino({ level: "trace" }, { write: (line: string) => void lines.push(line) }) },
  });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});
beforeEach(() => fake.reset());

const ask = async (model: string, stream = false) => {
  const res = await gw.request("/chat/completions", { method: "POST", json: { model, stream, messages: [{ role: "user", content: "Capital of France?" }] } });
  return { status: res.status, text: await res.text() };
};

test("a secret is in no log line, error body or catalog view, whatever AWS answers", async () => {
  const bodies: string[] = [];
  for (const [model, secret] of [["aws/keys", STATIC_KEY.secretAccessKey], ["aws/api-key", API_KEY]] as const) {
    fake.enqueue({ kind: "converse", body: { output: { message: { role: "assistant", content: [{ text: "Paris." }] } }, stopReason: "end_turn", usage: { inputTokens: 5, outputTokens: 1, totalTokens: 6 } } });
    const ok = await ask(model);
    expect(ok.status).toBe(200);
    bodies.push(ok.text);
    // AWS (or a proxy in front of it) quoting the credential it was sent.
    fake.enqueue({ kind: "error", type: "AccessDeniedException", message: `User with key ${secret} is not authorized to perform: bedrock:InvokeModel` });
    const denied = await ask(model);
    expect(denied.status).toBe(502);
    bodies.push(denied.text);
    fake.enqueue({ kind: "error", type: "ValidationException", message: `Malformed input request: ${secret}` }, { kind: "stream", frames: [{ event: "internalServerException", data: { message: `failed for ${secret}` } }] });
    bodies.push((await ask(model)).text, (await ask(model, true)).text);
  }
  // The signature came from the configured keys, the bearer header from the API key.
  expect(fake.requests.map((r) => r.auth?.kind)).toEqual(["sigv4", "sigv4", "sigv4", "sigv4", "api-key", "api-key", "api-key", "api-key"]);
  const views: string[] = [];
  for (const path of ["/providers", "/models", "/models/aws/keys/endpoints"]) {
    const res = await gw.request(path, { key: ADMIN_KEY });
    expect(res.status).toBe(200);
    views.push(await res.text());
  }
  const providers = JSON.parse(views[0]!) as { data: Array<{ name: string; region: string | null }> };
  expect(providers.data.find((p) => p.name === "aws-keys")?.region).toBe(REGION);
  expect(lines.length).toBeGreaterThan(0);
  for (const text of [...bodies, ...views, ...lines]) for (const secret of SECRETS) expect(text).not.toContain(secret);
});
