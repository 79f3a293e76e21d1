/**
 * The adapter conformance kit (`inference-gateway/sdk/conformance`) run against a built-in adapter (the simulator,
 * in-process) and an outside one (examples/providers/echo.ts, which imports only the public SDK entry).
 */
import { adapterConformance } from "inference-gateway/sdk/conformance";
import echo from "../../examples/providers/echo.ts";
import simulator from "../../providers/simulator/index.ts";

const target = (providerId: string, upstreamModel: string) => ({ providerId, baseUrl: `${providerId}://local`, apiKey: undefined, upstreamModel, headers: {}, options: {} });

adapterConformance({ adapter: simulator, target: target("simulator", "small"), deterministic: true, failure: { prompt: "Hello [sim status=503]" } });
adapterConformance({ adapter: echo, target: target("echo", "echo-1"), deterministic: true, prompt: "hello there from the kit", failure: { prompt: "please fail" } });
