/**
 * The adapter conformance kit (`inference-gateway/sdk/conformance`) run against a built-in adapter (the simulator,
 * in-process) and the outside ones, which import only the public SDK entries: examples/providers/echo.ts (no network)
 * and examples/providers/tiny-chat.ts (real HTTP calls to the gateway's chat-completions simulator on loopback).
 * test/conformance/adapters.test.ts runs it on the built-in HTTP adapters.
 */
import { afterAll } from "bun:test";
import { adapterConformance } from "inference-gateway/sdk/conformance";
import echo from "../../examples/providers/echo.ts";
import tinyChat from "../../examples/providers/tiny-chat.ts";
import simulator from "../../providers/simulator/index.ts";
import { startSimulatorServer } from "../../providers/simulator/server.ts";

const target = (providerId: string, upstreamModel: string) => ({ providerId, baseUrl: `${providerId}://local`, apiKey: undefined, upstreamModel, headers: {}, options: {} });

adapterConformance({ adapter: simulator, target: target("simulator", "small"), deterministic: true, failure: { prompt: "Hello [sim status=503]" } });
adapterConformance({ adapter: echo, target: target("echo", "echo-1"), deterministic: true, prompt: "hello there from the kit", failure: { prompt: "please fail" } });

const upstream = await startSimulatorServer();
afterAll(() => upstream.stop());
adapterConformance({
  adapter: tinyChat,
  target: { ...target("tiny", "small"), baseUrl: upstream.url },
  deterministic: true,
  reasoning: { prompt: "Think it over. [sim reasoning=8]" },
  failure: { prompt: "Hello [sim status=503]" },
});
