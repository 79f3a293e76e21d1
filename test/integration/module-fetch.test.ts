/**
 * `helpers.fetch` on a plugin's or a tool's context is under the network policy, like the context's `fetch`: a URL
 * a request or a model names cannot reach a private address through it (README "Extending"). Provider calls and the
 * moderation engine (operator-configured base URLs) keep the upstream client: the scripted model here is on loopback.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { callsFor, MODEL, startAgentGateway, type AgentGateway } from "./agent/setup.ts";

/** An internal service on loopback that counts the requests reaching it. */
const internal = { hits: 0 };
const service = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => (internal.hits++, new Response("internal secret")) });
const INTERNAL_URL = `http://127.0.0.1:${service.port}/admin`;
const EXTENSIONS = ["./test/fixtures/extensions/test-tools.ts", "./test/fixtures/extensions/fetch-probe.ts"];

type Json = Record<string, any>;

async function probeWithPlugin(agent: AgentGateway): Promise<{ status: number; pipeline: Json[] }> {
  agent.upstream.script = () => ({ text: "hello" });
  const res = await agent.gw.request("/chat/completions", {
    method: "POST",
    json: { model: MODEL, messages: [{ role: "user", content: "hi" }], plugins: [{ id: "fetch-probe", url: INTERNAL_URL }] },
    headers: { "x-service-metadata": "enabled" },
  });
  const body = (await res.json()) as Json;
  return { status: res.status, pipeline: (body.service_metadata?.pipeline ?? []) as Json[] };
}

async function probeWithTool(agent: AgentGateway): Promise<Json> {
  agent.upstream.script = callsFor(1, [{ name: "test_fetch_probe", args: { url: INTERNAL_URL } }]);
  const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "go", tools: [{ type: "service:test_fetch_probe" }] } });
  expect(res.status).toBe(200);
  return ((await res.json()) as Json).output[0] as Json;
}

afterAll(() => service.stop(true));

describe("helpers.fetch of plugins and tools, default network policy", () => {
  let agent: AgentGateway;
  beforeAll(async () => void (agent = await startAgentGateway(() => ({ text: "hello" }), { extensions: EXTENSIONS })));
  afterAll(() => agent.close());

  test("a plugin's helpers.fetch of a loopback URL from the request is refused; the provider on loopback still answers", async () => {
    const before = internal.hits;
    const { status, pipeline } = await probeWithPlugin(agent);
    expect(status).toBe(200);
    const probe = pipeline.find((entry) => entry.name === "fetch-probe")!;
    expect(probe.summary).toBe("refused");
    expect(probe.data.error).toContain(`network policy refused ${INTERNAL_URL}`);
    expect(internal.hits).toBe(before);
  });

  test("a tool's helpers.fetch of a loopback URL the model wrote is refused: the model gets the error", async () => {
    const before = internal.hits;
    const item = await probeWithTool(agent);
    expect(item).toMatchObject({ type: "service:test_fetch_probe", status: "failed" });
    expect(item.error).toContain("network policy refused");
    expect(internal.hits).toBe(before);
  });
});

describe("the same with the address allowed by network.allow_private", () => {
  let agent: AgentGateway;
  beforeAll(async () => void (agent = await startAgentGateway(() => ({ text: "hello" }), { extensions: EXTENSIONS, network: { allow_private: ["127.0.0.1/32"] } })));
  afterAll(() => agent.close());

  test("the plugin and the tool reach it (the probes do fetch: the refusals above are the policy's)", async () => {
    const before = internal.hits;
    const { pipeline } = await probeWithPlugin(agent);
    expect(pipeline.find((entry) => entry.name === "fetch-probe")).toMatchObject({ summary: "fetched", data: { status: 200 } });
    expect(await probeWithTool(agent)).toMatchObject({ status: "completed", result: { status: 200 } });
    expect(internal.hits).toBe(before + 2);
  });
});
