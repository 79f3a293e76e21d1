/** Image models in the config: `output_modalities` and `pricing.image`, validated and carried to the model config. */
import { describe, expect, test } from "bun:test";
import { buildConfig, validateConfigFile } from "../../../core/config/load.ts";

const provider = (model: Record<string, unknown>) => ({ providers: [{ id: "acme", adapter: "openai", base_url: "https://api.example.com/v1", models: [{ id: "acme/m", ...model }] }] });
const modelOf = (model: Record<string, unknown>) => buildConfig(validateConfigFile(provider(model)), {}, "/cfg").providers[0]!.models[0]!;

describe("image models", () => {
  test("output_modalities and a per-image price (number or numeric string) are read", () => {
    expect(modelOf({ output_modalities: ["image"], pricing: { prompt: 0, completion: 0, image: 0.04 } })).toMatchObject({ outputModalities: ["image"], pricing: { image: 0.04 } });
    expect(modelOf({ output_modalities: ["text", "image"], pricing: { prompt: 0, completion: 0, image: "0.19" } }).pricing.image).toBe(0.19);
  });

  test("left out, neither is set (the model says nothing about what it outputs)", () => {
    const model = modelOf({});
    expect(model.outputModalities).toBeUndefined();
    expect(model.pricing.image).toBeUndefined();
  });

  test("unknown modalities, an empty list, repeats and negative prices are refused naming the field", () => {
    expect(() => validateConfigFile(provider({ output_modalities: ["audio"] }))).toThrow('"providers.0.models.0.output_modalities.0"');
    expect(() => validateConfigFile(provider({ output_modalities: [] }))).toThrow('"providers.0.models.0.output_modalities"');
    expect(() => validateConfigFile(provider({ output_modalities: ["image", "image"] }))).toThrow('"providers.0.models.0.output_modalities"');
    expect(() => validateConfigFile(provider({ pricing: { prompt: 0, completion: 0, image: -1 } }))).toThrow("pricing.image");
  });

  test("the simulator's default catalog has an image model priced per image; its text models say text only", () => {
    const models = buildConfig({}, {}, "/cfg").providers[0]!.models;
    expect(models.map((m) => [m.id, m.outputModalities])).toEqual([["simulator/small", ["text"]], ["simulator/large", ["text"]], ["simulator/image", ["text", "image"]], ["simulator/embedding", ["embeddings"]], ["simulator/rerank", ["rerank"]]]);
    expect(models[2]!.pricing.image).toBe(0.02);
  });
});
