/**
 * A native `service:web_search` given to an adapter whose upstream has no search of its own (chat completions,
 * Gemini, the simulator) is a 400 naming the adapter, never a silent drop; a search the gateway runs is still only
 * a warning there.
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../core/errors.ts";
import type { Tool } from "../../../core/model/request.ts";
import { toGeminiBody } from "../../../providers/gemini/request.ts";
import { toChatBody } from "../../../providers/openai/request.ts";
import { bareDomain } from "../../../core/provider-kit/native-tools.ts";
import simulator from "../../../providers/simulator/index.ts";
import { canonicalRequest, providerCall, target } from "../providers/helpers.ts";

const NATIVE: Tool = { kind: "server", type: "service:web_search", parameters: { engine: "native" } };
const GATEWAYS: Tool = { kind: "server", type: "service:web_search", parameters: { engine: "auto" } };
const FUNCTION: Tool = { kind: "function", name: "get_weather", parameters: { type: "object" } };

function refusal(run: () => unknown): GatewayError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    return error as GatewayError;
  }
  throw new Error("the native search was accepted");
}

const builders: Array<[string, (tools: Tool[]) => unknown]> = [
  ["openai", (tools) => toChatBody(canonicalRequest({ tools }), target(), false)],
  ["gemini", (tools) => toGeminiBody(canonicalRequest({ tools }), target({ upstreamModel: "gemini-2.5-flash" }))],
];

describe("native server tools on adapters without a search of their own", () => {
  for (const [adapter, build] of builders) {
    test(`${adapter}: 400 invalid_request naming the adapter and the field`, () => {
      const error = refusal(() => build([FUNCTION, NATIVE]));
      expect(error.type).toBe("invalid_request");
      expect(error.status).toBe(400);
      expect(error.message).toBe(`service:web_search engine native is not supported by ${adapter}; use a gateway engine`);
      expect(error.metadata).toEqual({ field: "tools[1].parameters.engine" });
    });

    test(`${adapter}: a search the gateway runs is not refused (it was offered as a function; this entry is only warned about)`, () => {
      expect(() => build([GATEWAYS])).not.toThrow();
    });
  }

  test("simulator: the call is refused before anything is simulated", async () => {
    const call = providerCall({ request: canonicalRequest({ tools: [NATIVE] }), target: target({ providerId: "sim" }) });
    const thrown = await simulator.generate(call).catch((error: unknown) => error);
    expect(thrown).toBeInstanceOf(GatewayError);
    expect((thrown as GatewayError).message).toBe("service:web_search engine native is not supported by simulator; use a gateway engine");
    expect((thrown as GatewayError).status).toBe(400);
  });
});

test("bareDomain: the forms declare() accepts become the bare domains upstream searches want", () => {
  expect(["https://docs.example.com/", "*.example.org", "example.net/blog/", " en.wikipedia.org "].map(bareDomain)).toEqual([
    "docs.example.com",
    "example.org",
    "example.net/blog",
    "en.wikipedia.org",
  ]);
});
