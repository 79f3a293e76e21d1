/** core/config/file-schema.ts via validateConfigFile: every schema violation names the bad field. */
import { describe, expect, test } from "bun:test";
import { ConfigError, validateConfigFile } from "../../../core/config/load.ts";

const model = { id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: 0.0000005, completion: "0.0000015" }, context_length: 32768 };
const provider = { id: "acme", adapter: "openai", base_url: "https://api.example.com/v1", api_key: "sk-x", models: [model] };

/** A valid file with one value replaced at `path` (dot/number path). */
function withValue(path: string, value: unknown): unknown {
  const file = structuredClone({ providers: [provider], extensions: ["./x.ts"] }) as Record<string, unknown>;
  const keys = path.split(".");
  let at: Record<string, unknown> = file;
  for (const key of keys.slice(0, -1)) {
    at[key] ??= {};
    at = at[key] as Record<string, unknown>;
  }
  at[keys.at(-1)!] = value;
  return file;
}

function messageOf(raw: unknown): string {
  try {
    validateConfigFile(raw);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("config file schema", () => {
  test("the README's example shape is valid, as is an empty file", () => {
    expect(validateConfigFile({ providers: [provider], extensions: ["./x.ts", { module: "pkg", options: { a: 1 } }] })).toBeDefined();
    expect(validateConfigFile({})).toEqual({});
    expect(validateConfigFile({ providers: [{ ...provider, api_key: { env: "ACME_KEY" } }], simulator: true })).toBeDefined();
  });

  test.each([
    ["providers.0.id", "", 'invalid config field "providers.0.id"'],
    ["providers.0.id", "has space", 'invalid config field "providers.0.id"'],
    ["providers.0.adapter", 7, 'invalid config field "providers.0.adapter"'],
    ["providers.0.base_url", "ftp://x", 'invalid config field "providers.0.base_url"'],
    ["providers.0.api_key", 42, 'invalid config field "providers.0.api_key"'],
    ["providers.0.api_key", { env: "" }, 'invalid config field "providers.0.api_key"'],
    ["providers.0.api_key", { env: "A", extra: 1 }, 'invalid config field "providers.0.api_key"'],
    ["providers.0.headers", { "x-a": 1 }, 'invalid config field "providers.0.headers.x-a"'],
    ["providers.0.models.0.id", "", 'invalid config field "providers.0.models.0.id"'],
    ["providers.0.models.0.context_length", 0, 'invalid config field "providers.0.models.0.context_length"'],
    ["providers.0.models.0.context_length", 1.5, 'invalid config field "providers.0.models.0.context_length"'],
    ["providers.0.models.0.data_collection", "maybe", 'invalid config field "providers.0.models.0.data_collection"'],
    ["providers.0.models.0.pricing.prompt", -1, 'invalid config field "providers.0.models.0.pricing.prompt"'],
    ["providers.0.models.0.pricing.prompt", "-0.1", 'invalid config field "providers.0.models.0.pricing.prompt"'],
    ["providers.0.models.0.pricing.completion", "free", 'invalid config field "providers.0.models.0.pricing.completion"'],
    ["providers.0.models.0.pricing.cache_read", "1,5", 'invalid config field "providers.0.models.0.pricing.cache_read"'],
    ["providers.0.models.0.pricing.request", "", 'invalid config field "providers.0.models.0.pricing.request"'],
    ["providers.0.models.0.pricing.surprise", 1, 'invalid config field "providers.0.models.0.pricing.surprise"'],
    ["providers.0.models.0.typo_field", 1, 'invalid config field "providers.0.models.0.typo_field"'],
    ["providers.0.unknown", true, 'invalid config field "providers.0.unknown"'],
    ["extensions.0", "", 'invalid config field "extensions.0"'],
    ["extensions.0", { module: "x", extra: 1 }, 'invalid config field "extensions.0"'],
    ["plugins", { p: "not-an-object" }, 'invalid config field "plugins.p"'],
    ["simulator", "yes", 'invalid config field "simulator"'],
    ["server.body_limit_bytes", 10, 'invalid config field "server.body_limit_bytes"'],
    ["server.idle_timeout_seconds", 256, 'invalid config field "server.idle_timeout_seconds"'],
    ["server.keep_alive_ms", 99, 'invalid config field "server.keep_alive_ms"'],
    ["server.shutdown_grace_ms", -1, 'invalid config field "server.shutdown_grace_ms"'],
    ["server.idle_trim_ms", -1, 'invalid config field "server.idle_trim_ms"'],
    ["server.idle_trim_ms", 1.5, 'invalid config field "server.idle_trim_ms"'],
    ["server.port", 80, 'invalid config field "server.port"'],
    ["provider", [], 'invalid config field "provider"'],
  ])("%s = %p is rejected naming the field", (path, value, expected) => {
    expect(messageOf(withValue(path, value))).toStartWith(expected + ":");
  });

  test("a required field that is missing is named", () => {
    const { adapter: _adapter, ...noAdapter } = provider;
    expect(messageOf({ providers: [noAdapter] })).toStartWith('invalid config field "providers.0.adapter"');
    expect(messageOf({ providers: [{ ...provider, models: [{ ...model, pricing: { prompt: 1 } }] }] })).toStartWith(
      'invalid config field "providers.0.models.0.pricing.completion"',
    );
  });

  test("a root that is not an object is named as the root", () => {
    expect(messageOf([])).toStartWith('invalid config field "(root)"');
    expect(messageOf(null)).toStartWith('invalid config field "(root)"');
  });

  test.each(["0.5", "1e-7", "1E-7", ".5", " 3 ", "0", "2.5e+3"])("pricing string %p is accepted", (price) => {
    expect(() => validateConfigFile(withValue("providers.0.models.0.pricing.prompt", price))).not.toThrow();
  });
});
