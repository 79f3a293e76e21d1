/**
 * Local model servers (kinds `vllm`, `sglang`, `ollama`, `lmstudio`, `llamacpp`): no key, and no models written in
 * the config: the gateway asks each server's `GET /models` at start-up and on its interval, and serves what it lists
 * as `<provider id>/<served name>` exactly like a configured model (routing, price zero, `/models`, `/endpoints`),
 * through the `openai` and `@openrouter/sdk` clients. A server that is down at start-up does not stop the gateway:
 * its models appear once it answers.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { type FakeCompatible, startFakeCompatible } from "../../support/fake-compatible/server.ts";
import { freePort } from "../../support/free-port.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";
import { chatOnce, sdkClient, unknownVariants } from "../../support/openrouter-sdk.ts";
import { SERVED, servedList } from "../../conformance/support/kinds.ts";

let fake: FakeCompatible;
let gw: TestGateway;
let openai: OpenAI;

beforeAll(async () => {
  fake = await startFakeCompatible();
  fake.models.vllm = servedList("vllm");
  fake.models.sglang = servedList("sglang");
  fake.models.ollama = [...servedList("ollama"), { id: "llama3.2:3b", object: "model", created: 1_750_000_000, owned_by: "library" }];
  fake.models.lmstudio = servedList("lmstudio");
  gw = await startTestGateway({
    file: {
      providers: [
        // As an operator writes them: a kind and where the server is (here the fake's path for it).
        { id: "gpu-box", adapter: "openai", kind: "vllm", base_url: fake.baseUrl("vllm") },
        { id: "sg", adapter: "openai", kind: "sglang", base_url: fake.baseUrl("sglang") },
        { id: "laptop", adapter: "openai", kind: "ollama", base_url: fake.baseUrl("ollama"), discovery_interval_seconds: 1 },
        // A served model the config prices: it is served as configured, not a second time as discovered.
        {
          id: "studio",
          adapter: "openai",
          kind: "lmstudio",
          base_url: fake.baseUrl("lmstudio"),
          models: [{ id: "team/qwen3", upstream_model: SERVED.lmstudio, pricing: { prompt: 0.0000001, completion: 0.0000002 } }],
        },
      ],
    },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(async () => {
  await gw.close();
  await fake.stop();
});

const vllmModel = `gpu-box/${SERVED.vllm}`;

describe("discovered at start-up", () => {
  test("/models lists each served model as <provider>/<served name>, free, with the context length the server reports", async () => {
    const listed = new Map<string, Record<string, unknown>>();
    for await (const model of openai.models.list()) listed.set(model.id, model as unknown as Record<string, unknown>);
    expect([...listed.keys()].filter((id) => !id.startsWith("simulator/")).sort()).toEqual(
      [vllmModel, `sg/${SERVED.sglang}`, `laptop/${SERVED.ollama}`, "laptop/llama3.2:3b", "team/qwen3"].sort(),
    );
    expect(listed.get(vllmModel)).toMatchObject({ context_length: 32768, pricing: { prompt: "0", completion: "0" } });
    expect(listed.get(`sg/${SERVED.sglang}`)).toMatchObject({ context_length: 131072 });
    // Ollama reports no context length.
    expect(listed.get(`laptop/${SERVED.ollama}`)).toMatchObject({ context_length: null });
    expect(listed.get("team/qwen3")).toMatchObject({ pricing: { prompt: "1e-7", completion: "2e-7" } });
    expect(listed.has(`studio/${SERVED.lmstudio}`)).toBe(false);
    // The model listings went out without a key: local servers need none.
    const listings = fake.requests.filter((r) => r.path.endsWith("/models"));
    expect(listings.length).toBeGreaterThanOrEqual(4);
    expect(listings.every((r) => r.headers.authorization === undefined)).toBe(true);
  });

  test("the peer SDK parses them; endpoints.list shows the endpoint like a configured one", async () => {
    const { sdk } = sdkClient(gw, gw.inferenceKey);
    const page = (await sdk.models.list({})).result;
    expect(unknownVariants(page)).toEqual([]);
    expect(page.data.find((m) => m.id === vllmModel)).toMatchObject({ contextLength: 32768, pricing: { prompt: "0", completion: "0" } });
    const { data } = await sdk.endpoints.list({ author: "gpu-box", slug: SERVED.vllm });
    expect(data).toMatchObject({ id: vllmModel });
    expect(data.endpoints).toHaveLength(1);
    expect(data.endpoints[0]).toMatchObject({ providerName: "gpu-box", contextLength: 32768, pricing: { prompt: "0", completion: "0" } });
    const providers = await sdk.providers.list();
    expect(providers.data.find((p) => p.slug === "gpu-box")).toBeDefined();
  });

  test("a discovered model routes like a configured one: the server gets its served name, no key, and the cost is zero", async () => {
    const { sdk, bodies } = sdkClient(gw, gw.inferenceKey);
    const reply = await chatOnce(sdk, { model: vllmModel, messages: [{ role: "user", content: "Capital of France?" }] });
    expect(reply.choices[0]!.message.content).toBe("The capital of France is Paris.");
    expect(fake.lastChat()).toMatchObject({ kind: "vllm", body: { model: SERVED.vllm } });
    expect(fake.lastChat().headers.authorization).toBeUndefined();
    expect((bodies.at(-1) as { usage: { cost: number } }).usage.cost).toBe(0);
    const streamed = await openai.chat.completions.create({ model: vllmModel, messages: [{ role: "user", content: "Hi" }], stream: true, stream_options: { include_usage: true } });
    let usage: OpenAI.CompletionUsage | undefined;
    for await (const chunk of streamed) usage = chunk.usage ?? usage;
    // Usage asked of the server with stream_options (vLLM reports none otherwise).
    expect(fake.lastChat().body.stream_options).toEqual({ include_usage: true });
    expect(usage).toMatchObject({ prompt_tokens: 20, completion_tokens: 9 });
  });

  test("the interval asks again: a model the server adds appears, one it drops disappears", async () => {
    const ids = async () => (await gw.request("/models").then((r) => r.json() as Promise<{ data: Array<{ id: string }> }>)).data.map((m) => m.id);
    fake.models.ollama = [...servedList("ollama"), { id: "gemma3:4b", object: "model", created: 1_750_000_000, owned_by: "library" }];
    await waitFor(async () => (await ids()).includes("laptop/gemma3:4b"));
    const now = await ids();
    expect(now).toContain(`laptop/${SERVED.ollama}`);
    expect(now).not.toContain("laptop/llama3.2:3b");
  });
});

describe("a server that is down at start-up", () => {
  let late: FakeCompatible | undefined;
  let second: TestGateway | undefined;
  afterEach(async () => {
    await second?.close();
    await late?.stop();
  });

  test("does not stop the gateway; its models appear when it comes up, and are served", async () => {
    const port = await freePort();
    second = await startTestGateway({
      file: { providers: [{ id: "later", adapter: "openai", kind: "llamacpp", base_url: `http://127.0.0.1:${port}/llamacpp/v1`, discovery_interval_seconds: 1 }] },
    });
    const listed = async () => ((await second!.request("/models").then((r) => r.json())) as { data: Array<{ id: string }> }).data.map((m) => m.id);
    expect((await listed()).some((id) => id.startsWith("later/"))).toBe(false);
    const refused = await second.request("/chat/completions", { method: "POST", json: { model: `later/${SERVED.llamacpp}`, messages: [{ role: "user", content: "Hi" }] } });
    expect(refused.status).toBe(400);
    expect((await second.request("/health")).status).toBe(200);

    late = await startFakeCompatible({ port });
    late.models.llamacpp = servedList("llamacpp");
    await waitFor(async () => (await listed()).includes(`later/${SERVED.llamacpp}`));
    const served = await second.request("/chat/completions", { method: "POST", json: { model: `later/${SERVED.llamacpp}`, messages: [{ role: "user", content: "Hi" }] } });
    expect(served.status).toBe(200);
    expect(late.lastChat().body.model).toBe(SERVED.llamacpp);
  });
});

/** Polls until `check` holds; a generous bound so a slow machine does not fail it (the interval under test is 1 s). */
async function waitFor(check: () => Promise<boolean>, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(100);
  }
}
