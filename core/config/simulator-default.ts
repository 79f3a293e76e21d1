/** The built-in simulator provider: the embedded default so a newcomer sees the gateway work with no account. */
import type { ModelConfig, OutputModality, Pricing, ProviderConfig } from "./types.ts";

/** USD per image `simulator/image` charges: simulated, but priced so billing of images can be seen working. */
export const SIMULATOR_IMAGE_PRICE = 0.02;

const DESCRIPTIONS: Record<OutputModality, string> = {
  text: "Built-in provider simulator: deterministic text and exact token counts. Not a language model.",
  image: "Built-in provider simulator: deterministic text and a small PNG drawn from the prompt. Not an image model.",
  embeddings: "Built-in provider simulator: the same input always gives the same unit vector (256 dimensions by default). Not an embedding model.",
  rerank: "Built-in provider simulator: documents scored by the share of the query's words they contain. Not a rerank model.",
};

const model = (id: string, pricing: Pricing, contextLength: number, outputModalities: OutputModality[]): ModelConfig => ({
  id,
  upstreamModel: id.slice("simulator/".length),
  pricing,
  contextLength,
  maxOutputTokens: 4096,
  supportedParameters: undefined,
  quantization: undefined,
  tiers: undefined,
  dataCollection: undefined,
  zdr: undefined,
  name: `Simulator ${id.slice("simulator/".length)} (deterministic, no real model)`,
  description: DESCRIPTIONS[outputModalities.at(-1)!],
  outputModalities,
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
      model("simulator/small", { prompt: 0.0000001, completion: 0.0000004 }, 32768, ["text"]),
      model("simulator/large", { prompt: 0.000003, completion: 0.000015 }, 200000, ["text"]),
      model("simulator/image", { prompt: 0.0000001, completion: 0.0000004, image: SIMULATOR_IMAGE_PRICE }, 32768, ["text", "image"]),
      // Retrieval (README "Embeddings and rerank"): priced per input token, so their billing can be seen working.
      { ...model("simulator/embedding", { prompt: 0.00000002, completion: 0 }, 8192, ["embeddings"]), maxOutputTokens: undefined },
      { ...model("simulator/rerank", { prompt: 0.00000005, completion: 0 }, 8192, ["rerank"]), maxOutputTokens: undefined },
    ],
  };
}
