/**
 * A third-party provider adapter inside the compiled binary: examples/providers/tiny-chat.ts, written only against
 * `inference-gateway/sdk` and `inference-gateway/sdk/provider`, is copied to a folder outside the checkout with no
 * node_modules, loaded from the config's `extensions`, and serves a configured provider whose upstream is the
 * chat-completions simulator on loopback. Its SDK imports resolve to the binary's own instances (README "Extending").
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { join, resolve } from "node:path";
import OpenAI from "openai";
import { startSimulatorServer, type SimulatorServer } from "../../providers/simulator/server.ts";
import { startBinaryGateway, type BinaryGateway } from "../support/binary-gateway.ts";

const root = resolve(import.meta.dir, "../..");
const QUESTION = "What does the loopback upstream say?";
let upstream: SimulatorServer;
let gateway: BinaryGateway;
let client: OpenAI;

beforeAll(async () => {
  upstream = await startSimulatorServer({ record: true });
  gateway = await startBinaryGateway({
    adminKey: "binary-admin",
    files: { "tiny-chat.ts": join(root, "examples/providers/tiny-chat.ts") },
    config: {
      extensions: ["./tiny-chat.ts"],
      providers: [{ id: "tiny", adapter: "tiny-chat", base_url: upstream.url, models: [{ id: "tiny/small", upstream_model: "small", pricing: { prompt: 0.000001, completion: 0.000002 } }] }],
    },
  });
  const created = await fetch(`${gateway.base}/keys`, { method: "POST", headers: { authorization: "Bearer binary-admin", "content-type": "application/json" }, body: JSON.stringify({ name: "adapter" }) });
  const { key } = (await created.json()) as { key: string };
  client = new OpenAI({ baseURL: gateway.base, apiKey: key, maxRetries: 0 });
}, 120_000);
afterAll(async () => {
  await gateway?.stop();
  await upstream?.stop();
});

/** What the upstream itself answers the question with (the simulator is deterministic). */
async function upstreamAnswer(): Promise<string> {
  const direct = new OpenAI({ baseURL: upstream.url, apiKey: "unused" });
  const reply = await direct.chat.completions.create({ model: "small", messages: [{ role: "user", content: QUESTION }] });
  return reply.choices[0]!.message.content!;
}

describe("a third-party adapter in the compiled binary", () => {
  test("a chat request through the openai client is answered by the upstream the adapter called over HTTP", async () => {
    const expected = await upstreamAnswer();
    upstream.requests.length = 0;
    const reply = await client.chat.completions.create({ model: "tiny/small", messages: [{ role: "user", content: QUESTION }] });
    expect(reply.choices[0]!.message.content).toBe(expected);
    expect(reply.model).toBe("tiny/small");
    expect(reply.usage!.prompt_tokens).toBeGreaterThan(0);
    // The adapter's own request reached the loopback upstream: its path, the upstream model name, the question.
    expect(upstream.requests.map((r) => r.path)).toEqual(["/v1/chat/completions"]);
    const sent = upstream.requests[0]!.body as { model: string; stream: boolean; messages: Array<{ role: string; content: string }> };
    expect(sent).toMatchObject({ model: "small", stream: false, messages: [{ role: "user", content: QUESTION }] });
  });

  test("streamed: the chunks the adapter parsed from the upstream's SSE add up to the same answer", async () => {
    const expected = await upstreamAnswer();
    const stream = await client.chat.completions.create({ model: "tiny/small", messages: [{ role: "user", content: QUESTION }], stream: true });
    let text = "";
    let finish: string | null = null;
    for await (const chunk of stream) {
      text += chunk.choices[0]?.delta.content ?? "";
      finish = chunk.choices[0]?.finish_reason ?? finish;
    }
    expect(text).toBe(expected);
    expect(finish).toBe("stop");
  });

  test("an upstream failure reaches the client as the mapped error, not an internal one", async () => {
    const failed = await client.chat.completions.create({ model: "tiny/small", messages: [{ role: "user", content: "Hello [sim status=422]" }] }).catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(OpenAI.APIError);
    const error = failed as InstanceType<typeof OpenAI.APIError>;
    expect(error.status).toBe(422);
    expect(error.message).toContain("Simulated upstream failure (HTTP 422)");
  });
});
