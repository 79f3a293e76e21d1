/** The built-in simulator provider: the embedded default so a newcomer sees the gateway work with no account. */
import type { ProviderConfig } from "./types.ts";

const model = (id: string, prompt: number, completion: number, contextLength: number) => ({
  id,
  upstreamModel: id.slice("simulator/".length),
  pricing: { prompt, completion },
  contextLength,
  maxOutputTokens: 4096,
  supportedParameters: undefined,
  quantization: undefined,
  tiers: undefined,
  dataCollection: undefined,
  zdr: undefined,
  name: `Simulator ${id.slice("simulator/".length)} (deterministic, no real model)`,
  description: "Built-in provider simulator: deterministic text and exact token counts. Not a language model.",
});

export function simulatorProvider(): ProviderConfig {
  return {
    id: "simulator",
    adapter: "simulator",
    baseUrl: "simulator://local",
    apiKey: undefined,
    headers: {},
    options: {},
    simulated: true,
    models: [
      model("simulator/small", 0.0000001, 0.0000004, 32768),
      model("simulator/large", 0.000003, 0.000015, 200000),
    ],
  };
}
