/** core/config/load.ts: env + file → GatewayConfig (defaults, secrets, prices, simulator rules, PORT). */
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { ConfigFile } from "../../../core/config/file-schema.ts";
import { ConfigError, buildConfig, loadConfig, readConfigFile } from "../../../core/config/load.ts";

const acme = {
  id: "acme",
  adapter: "openai",
  base_url: "https://api.example.com/v1/",
  api_key: "sk-literal",
  models: [{ id: "acme/model-a", upstream_model: "model-a", pricing: { prompt: 0.0000005, completion: "0.0000015" }, context_length: 32768 }],
};

const build = (file: ConfigFile, env: Record<string, string | undefined> = {}) => buildConfig(file, env, "/cfg");

function errorOf(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected a throw");
}

describe("defaults", () => {
  test("no env and no file: embedded defaults with the simulator", () => {
    const config = build({});
    expect(config).toMatchObject({
      host: "0.0.0.0",
      port: 8080,
      databaseUrl: "sqlite://./data/gateway.db",
      redisUrl: undefined,
      logLevel: "info",
      adminKey: undefined,
      bodyLimitBytes: 10 * 1024 * 1024,
      idleTimeoutSeconds: 255,
      keepAliveMs: 15_000,
      shutdownGraceMs: 30_000,
      idleTrimMs: 10_000,
      extensions: [],
      plugins: {},
      configDir: "/cfg",
    });
    expect(config.providers.map((p) => p.id)).toEqual(["simulator"]);
    expect(config.providers[0]!.simulated).toBe(true);
    expect(config.providers[0]!.models.map((m) => m.id)).toEqual(["simulator/small", "simulator/large", "simulator/image", "simulator/embedding", "simulator/rerank"]);
  });

  test("env values are taken as given; empty strings fall back to defaults", () => {
    const config = build({}, {
      HOST: "127.0.0.1",
      PORT: "9090",
      DATABASE_URL: "postgres://u@h/db",
      REDIS_URL: "redis://localhost:6379",
      LOG_LEVEL: "debug",
      GATEWAY_ADMIN_KEY: "admin-secret",
    });
    expect(config).toMatchObject({ host: "127.0.0.1", port: 9090, databaseUrl: "postgres://u@h/db", redisUrl: "redis://localhost:6379", logLevel: "debug", adminKey: "admin-secret" });
    const empty = build({}, { HOST: "", PORT: "", DATABASE_URL: "", REDIS_URL: "", LOG_LEVEL: "", GATEWAY_ADMIN_KEY: "" });
    expect(empty).toMatchObject({ host: "0.0.0.0", port: 8080, databaseUrl: "sqlite://./data/gateway.db", redisUrl: undefined, logLevel: "info", adminKey: undefined });
  });

  test("server settings come from the file", () => {
    const config = build({ server: { body_limit_bytes: 2048, idle_timeout_seconds: 30, keep_alive_ms: 500, shutdown_grace_ms: 0, idle_trim_ms: 0 } });
    expect(config).toMatchObject({ bodyLimitBytes: 2048, idleTimeoutSeconds: 30, keepAliveMs: 500, shutdownGraceMs: 0, idleTrimMs: 0 });
  });
});

describe("providers", () => {
  test("a provider entry becomes a ProviderConfig with numeric prices and a trimmed base URL", () => {
    const config = build({ providers: [acme] });
    expect(config.providers).toHaveLength(1);
    const [provider] = config.providers;
    expect(provider).toMatchObject({ id: "acme", adapter: "openai", baseUrl: "https://api.example.com/v1", apiKey: "sk-literal", headers: {}, options: {}, simulated: false });
    expect(provider!.models[0]).toMatchObject({
      id: "acme/model-a",
      upstreamModel: "model-a",
      pricing: { prompt: 0.0000005, completion: 0.0000015 },
      contextLength: 32768,
    });
    expect(typeof provider!.models[0]!.pricing.completion).toBe("number");
    expect(Object.keys(provider!.models[0]!.pricing).sort()).toEqual(["completion", "prompt"]);
  });

  test("every price field is converted, and a model without pricing is free", () => {
    const config = build({
      providers: [
        {
          ...acme,
          models: [
            { id: "m1", pricing: { prompt: "1e-6", completion: "2e-6", cache_read: "0.0000001", cache_write: 0.00000125, reasoning: " 3e-6 ", request: "0.01" } },
            { id: "m2" },
          ],
        },
      ],
    });
    const [m1, m2] = config.providers[0]!.models;
    expect(m1!.pricing).toEqual({ prompt: 1e-6, completion: 2e-6, cacheRead: 1e-7, cacheWrite: 0.00000125, reasoning: 3e-6, request: 0.01 });
    expect(m1!.upstreamModel).toBe("m1");
    expect(m2!.pricing).toEqual({ prompt: 0, completion: 0 });
  });

  test("a numeric string that overflows is rejected naming the field", () => {
    const file = { providers: [{ ...acme, models: [{ id: "m", pricing: { prompt: "1e400", completion: 0 } }] }] };
    const error = errorOf(() => build(file));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe('invalid config field "providers[0].models[0].pricing.prompt": not a price');
  });

  test("api_key {env} is read from the environment; a missing variable names the field and the variable", () => {
    const file = { providers: [{ ...acme, api_key: { env: "ACME_KEY" } }] };
    expect(build(file, { ACME_KEY: "sk-from-env" }).providers[0]!.apiKey).toBe("sk-from-env");
    for (const env of [{}, { ACME_KEY: "" }]) {
      const error = errorOf(() => build(file, env));
      expect(error).toBeInstanceOf(ConfigError);
      expect(error.message).toBe('invalid config field "providers[0].api_key": environment variable ACME_KEY is not set');
    }
  });

  test("no api_key stays undefined", () => {
    const { api_key: _k, ...noKey } = acme;
    expect(build({ providers: [noKey] }).providers[0]!.apiKey).toBeUndefined();
  });

  test("base_url may be left out (its adapter says whether it needs one: test/unit/routing/catalog.test.ts); the simulator's is its own", () => {
    const { base_url: _b, ...noUrl } = acme;
    expect(build({ providers: [acme, { ...noUrl, id: "acme2" }] }).providers[1]!.baseUrl).toBe("");
    const sim = build({ providers: [{ id: "sim2", adapter: "simulator", models: [{ id: "simulator/x" }] }] });
    expect(sim.providers[0]).toMatchObject({ id: "sim2", baseUrl: "simulator://local", simulated: true });
  });

  test("a cloud entry's region and credentials are carried over, each credential {env} read from the environment", () => {
    const cloud = { ...acme, region: "us-east-1", credentials: { access_key_id: { env: "AKID" }, secret_access_key: "literal-secret" } };
    const provider = build({ providers: [cloud] }, { AKID: "AKIAEXAMPLE" }).providers[0]!;
    expect(provider.region).toBe("us-east-1");
    expect(provider.credentials).toEqual({ access_key_id: "AKIAEXAMPLE", secret_access_key: "literal-secret" });
    const error = errorOf(() => build({ providers: [cloud] }, {}));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe('invalid config field "providers[0].credentials.access_key_id": environment variable AKID is not set');
  });

  test("with a kind, base_url and models may be left out (the kind has a default; a server may list its models)", () => {
    const local = build({ providers: [{ id: "box", adapter: "openai", kind: "vllm", discovery_interval_seconds: 60 }] });
    expect(local.providers[0]).toMatchObject({ id: "box", kind: "vllm", baseUrl: "", models: [], discoveryIntervalMs: 60_000 });
    expect(build({ providers: [acme] }).providers[0]).not.toHaveProperty("kind");
  });

  test("duplicate provider ids are rejected", () => {
    const error = errorOf(() => build({ providers: [acme, { ...acme }] }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe('invalid config field "providers[].id": duplicate id "acme"');
  });

  test("headers, options and routing attributes are carried over", () => {
    const config = build({
      providers: [
        {
          ...acme,
          headers: { "x-org": "o1" },
          options: { timeout_ms: 5 },
          models: [{ id: "m", name: "M", description: "d", max_output_tokens: 10, supported_parameters: ["tools"], quantization: "fp8", tiers: ["flex"], data_collection: "deny", zdr: true }],
        },
      ],
    });
    expect(config.providers[0]).toMatchObject({ headers: { "x-org": "o1" }, options: { timeout_ms: 5 } });
    expect(config.providers[0]!.models[0]).toMatchObject({
      name: "M",
      description: "d",
      maxOutputTokens: 10,
      supportedParameters: ["tools"],
      quantization: "fp8",
      tiers: ["flex"],
      dataCollection: "deny",
      zdr: true,
    });
  });
});

describe("simulator inclusion", () => {
  test("configured providers replace the simulator", () => {
    expect(build({ providers: [acme] }).providers.map((p) => p.id)).toEqual(["acme"]);
    expect(build({ providers: [acme], simulator: false }).providers.map((p) => p.id)).toEqual(["acme"]);
  });

  test("simulator: true keeps it (first) next to configured providers", () => {
    expect(build({ providers: [acme], simulator: true }).providers.map((p) => p.id)).toEqual(["simulator", "acme"]);
  });

  test("an empty providers list still gets the simulator", () => {
    expect(build({ providers: [] }).providers.map((p) => p.id)).toEqual(["simulator"]);
  });

  test("simulator: true with a user provider also called simulator is a duplicate", () => {
    const mine = { id: "simulator", adapter: "simulator", models: [{ id: "simulator/mine" }] };
    expect(errorOf(() => build({ providers: [mine], simulator: true })).message).toContain('duplicate id "simulator"');
    expect(build({ providers: [mine] }).providers[0]!.models.map((m) => m.id)).toEqual(["simulator/mine"]);
  });

  test("each build gets its own simulator config (no shared mutable state)", () => {
    const a = build({});
    a.providers[0]!.models[0]!.pricing.prompt = 99;
    expect(build({}).providers[0]!.models[0]!.pricing.prompt).not.toBe(99);
  });
});

describe("PORT", () => {
  test.each([
    ["8080", 8080],
    ["0", 0],
    ["65535", 65535],
    [" 3000 ", 3000],
  ])("%p is port %p", (raw, port) => {
    expect(build({}, { PORT: raw }).port).toBe(port);
  });

  test.each(["65536", "-1", "80.5", "http", "8080abc", "0x1F90", "1e3", " "])("%p is rejected", (raw) => {
    const error = errorOf(() => build({}, { PORT: raw }));
    expect(error).toBeInstanceOf(ConfigError);
    expect(error.message).toBe(`PORT: not a port number: ${raw}`);
  });
});

describe("extensions and plugins", () => {
  test("string and object entries both become {module, options}", () => {
    const config = build({ extensions: ["./a.ts", { module: "pkg-b" }, { module: "./c.ts", options: { x: 1 } }], plugins: { p: { level: 2 } } });
    expect(config.extensions).toEqual([
      { module: "./a.ts", options: {} },
      { module: "pkg-b", options: {} },
      { module: "./c.ts", options: { x: 1 } },
    ]);
    expect(config.plugins).toEqual({ p: { level: 2 } });
  });
});

describe("reading the file", () => {
  const dir = mkdtempSync(join(tmpdir(), "gw-config-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test("GATEWAY_CONFIG is read, validated and its directory becomes configDir", async () => {
    const path = join(dir, "gateway.json");
    writeFileSync(path, JSON.stringify({ providers: [acme], extensions: ["./ext.ts"] }));
    const config = await loadConfig({ GATEWAY_CONFIG: path, PORT: "1234" });
    expect(config.configDir).toBe(dir);
    expect(config.port).toBe(1234);
    expect(config.providers.map((p) => p.id)).toEqual(["acme"]);
  });

  test("without GATEWAY_CONFIG the working directory is configDir", async () => {
    const config = await loadConfig({});
    expect(config.configDir).toBe(process.cwd());
    expect(config.providers.map((p) => p.id)).toEqual(["simulator"]);
  });

  test("a missing file, bad JSON and a bad field are ConfigErrors that say what is wrong", async () => {
    const missing = join(dir, "nope.json");
    await expect(readConfigFile(missing)).rejects.toThrow(`GATEWAY_CONFIG: file not found: ${missing}`);
    const bad = join(dir, "bad.json");
    writeFileSync(bad, "{ providers: [");
    const jsonError = (await readConfigFile(bad).then(
      () => undefined,
      (e: unknown) => e,
    )) as Error;
    expect(jsonError).toBeInstanceOf(ConfigError);
    expect(jsonError.message).toStartWith(`GATEWAY_CONFIG: ${bad} is not valid JSON:`);
    const invalid = join(dir, "invalid.json");
    writeFileSync(invalid, JSON.stringify({ providers: [{ ...acme, models: [{ id: "m", pricing: { prompt: "cheap", completion: 0 } }] }] }));
    await expect(loadConfig({ GATEWAY_CONFIG: invalid })).rejects.toThrow('invalid config field "providers.0.models.0.pricing.prompt"');
  });
});
