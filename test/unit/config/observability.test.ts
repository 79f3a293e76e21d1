/** The metrics and tracing config sections, and the OTEL_* environment (core/config/observability.ts). */
import { describe, expect, test } from "bun:test";
import { buildConfig, ConfigError } from "../../../core/config/load.ts";

describe("observability config", () => {
  test("defaults: metrics on and open, tracing off", () => {
    const config = buildConfig({}, {}, "/");
    expect(config.metrics).toEqual({ enabled: true, token: undefined });
    expect(config.tracing).toBeUndefined();
  });

  test("metrics.token as a string or from the environment", () => {
    expect(buildConfig({ metrics: { token: "t" } }, {}, "/").metrics?.token).toBe("t");
    expect(buildConfig({ metrics: { token: { env: "SCRAPE" } } }, { SCRAPE: "s" }, "/").metrics?.token).toBe("s");
    expect(() => buildConfig({ metrics: { token: { env: "MISSING" } } }, {}, "/")).toThrow(ConfigError);
  });

  test("tracing from OTEL_* variables: a base gets /v1/traces, the signal URL is used as is; the file wins", () => {
    expect(buildConfig({}, { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318/" }, "/").tracing?.url).toBe("http://c:4318/v1/traces");
    expect(buildConfig({}, { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://c:4318/custom" }, "/").tracing?.url).toBe("http://c:4318/custom");
    const env = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://c:4318", OTEL_EXPORTER_OTLP_HEADERS: "authorization=Bearer%20x,team=a", OTEL_SERVICE_NAME: "gw" };
    expect(buildConfig({}, env, "/").tracing).toMatchObject({ headers: { authorization: "Bearer x", team: "a" }, serviceName: "gw", sampleRatio: 1 });
    // The README's queue defaults; the file's own values win.
    expect(buildConfig({}, env, "/").tracing).toMatchObject({ queueSize: 8192, batchSize: 1024, delayMs: 1000 });
    expect(buildConfig({ tracing: { endpoint: "http://c:4318/v1/traces", queue_size: 64, batch_size: 8, delay_ms: 50 } }, {}, "/").tracing).toMatchObject({ queueSize: 64, batchSize: 8, delayMs: 50 });
    expect(buildConfig({ tracing: { endpoint: "http://file:4318/v1/traces", sample_ratio: 0.5 } }, env, "/").tracing).toMatchObject({ url: "http://file:4318/v1/traces", sampleRatio: 0.5 });
    expect(() => buildConfig({}, { OTEL_EXPORTER_OTLP_ENDPOINT: "grpc://c:4317" }, "/")).toThrow(ConfigError);
  });
});
