/**
 * The configuration's defaults: what an empty config file resolves to, what a partly written section keeps, and the
 * DEFAULT_* values hand-built configs fall back on. The values are the README's ("Configuration", "Routing and
 * limits", "Batches", "Containers", "Caps on heavy work", "Operating the gateway").
 */
import { describe, expect, test } from "bun:test";
import { Value } from "@sinclair/typebox/value";
import { resolveDefaults } from "../../../core/config/defaults.ts";
import { AgentLoopFileSchema, BatchesFileSchema, NetworkFileSchema, SandboxFileSchema, ServerFileSchema } from "../../../core/config/file-schema.ts";
import { DocumentsFileSchema } from "../../../core/config/documents.ts";
import { MetricsFileSchema, TracingFileSchema } from "../../../core/config/observability.ts";
import { LimitsFileSchema, RoutingFileSchema } from "../../../core/config/routing-limits.ts";
import type { ConfigFile } from "../../../core/config/file-schema.ts";
import { buildConfig, DEFAULT_BATCHES, DEFAULT_SANDBOX, DEFAULT_STREAM_WRITE_TIMEOUT_MS } from "../../../core/config/load.ts";
import { DEFAULT_DOCUMENTS } from "../../../core/config/documents.ts";
import { CacheFileSchema, DEFAULT_CACHE } from "../../../core/config/cache.ts";
import { DEFAULT_METRICS } from "../../../core/config/observability.ts";
import { DEFAULT_LIMITS, DEFAULT_ROUTING } from "../../../core/config/routing-limits.ts";
import { DEFAULT_EMBEDDINGS, EmbeddingsFileSchema } from "../../../core/config/embeddings.ts";

const SECTIONS = [CacheFileSchema, AgentLoopFileSchema, BatchesFileSchema, NetworkFileSchema, SandboxFileSchema, ServerFileSchema, DocumentsFileSchema, MetricsFileSchema, TracingFileSchema, LimitsFileSchema, RoutingFileSchema, EmbeddingsFileSchema];

const MIB = 1024 * 1024;

const ROUTING = {
  firstByteTimeoutMs: 60_000,
  requestTimeoutMs: 60_000,
  requestTimeoutMargin: 2,
  assumedOutputTokensPerSecond: 20,
  idleTimeoutMs: 120_000,
  retryDeadlineMs: 30_000,
  maxRetries: 1,
  backoffBaseMs: 100,
  backoffMaxMs: 2_000,
  breaker: { failureThreshold: 3, failureWindowMs: 60_000, cooldownMs: 30_000 },
  stickyTtlMs: 3_600_000,
  stats: { samples: 100, syncIntervalMs: 5_000 },
};
const LIMITS = { rateLimit: null, defaultMaxOutputTokens: 4_096, reservationTtlMs: 900_000, byokFeePercent: 0 };
const EMBEDDINGS = { maxInputs: 2_048, maxInputTokens: 8_192 };
const BATCHES = { worker: true, concurrency: 16, perBatchConcurrency: 4, discount: 0.5, pollIntervalMs: 1_000, leaseMs: 10_000, getRateLimitPerMinute: 600 };
const SANDBOX = { backend: "just-bash" as const, dir: "./data/containers", maxBytes: 100 * MIB, maxFiles: 10_000, sweepIntervalMs: 60_000, workers: 4, listScanBound: 1_000, queueTimeoutMs: 30_000, allowFallback: false, bwrapPath: "bwrap", maxProcesses: 256, firstUid: 2_000_000_000 };
const DOCUMENTS = {
  workers: 2,
  timeoutMs: 30_000,
  maxMemoryBytes: 512 * MIB,
  pdf: { maxPages: 2_000, maxDecodedBytes: 64 * MIB, maxChars: 2_000_000 },
  html: { maxDepth: 512, maxNodes: 200_000 },
};
const METRICS = { enabled: true, token: undefined };
const CACHE = { defaultTtlSeconds: 300, maxTtlSeconds: 86_400, maxEntryBytes: MIB, maxTotalBytes: 64 * MIB, maxTemperature: 1, readPriceFactor: 0 };

function resolved(file: ConfigFile) {
  const { providers: _providers, ...config } = buildConfig(file, {}, "/cfg");
  return config;
}

describe("config defaults", () => {
  test("an empty file resolves to the documented defaults, and to nothing else", () => {
    expect(resolved({})).toStrictEqual({
      host: "0.0.0.0",
      port: 8080,
      databaseUrl: "sqlite://./data/gateway.db",
      redisUrl: undefined,
      storeWaitMs: 180_000,
      logLevel: "info",
      adminKey: undefined,
      bodyLimitBytes: 10 * MIB,
      idleTimeoutSeconds: 255,
      keepAliveMs: 15_000,
      shutdownGraceMs: 30_000,
      idleTrimMs: 10_000,
      streamWriteTimeoutMs: 30_000,
      extensions: [],
      plugins: {},
      tools: {},
      agentLoop: { toolConcurrency: 8, toolTimeoutMs: 30_000 },
      network: { allowPrivate: [] },
      routing: ROUTING,
      limits: LIMITS,
      embeddings: EMBEDDINGS,
      batches: BATCHES,
      sandbox: SANDBOX,
      documents: DOCUMENTS,
      cache: CACHE,
      metrics: METRICS,
      configDir: "/cfg",
    });
  });

  test("the DEFAULT_* values of hand-built configs are the same", () => {
    expect(DEFAULT_ROUTING).toStrictEqual(ROUTING);
    expect(DEFAULT_LIMITS).toStrictEqual(LIMITS);
    expect(DEFAULT_EMBEDDINGS).toStrictEqual(EMBEDDINGS);
    expect(DEFAULT_BATCHES).toStrictEqual(BATCHES);
    expect(DEFAULT_SANDBOX).toStrictEqual(SANDBOX);
    expect(DEFAULT_DOCUMENTS).toStrictEqual(DOCUMENTS);
    expect(DEFAULT_CACHE).toStrictEqual(CACHE);
    expect(DEFAULT_METRICS).toStrictEqual(METRICS);
    expect(DEFAULT_STREAM_WRITE_TIMEOUT_MS).toBe(30_000);
  });

  test("a section written in part keeps the defaults of every field it leaves out, nested ones too", () => {
    const config = resolved({
      server: { keep_alive_ms: 500 },
      agent_loop: { tool_concurrency: 2 },
      routing: { max_retries: 0, breaker: { cooldown_ms: 5 }, stats: {} },
      limits: { rate_limit: { requests: 5 } },
      batches: { discount: 0.25 },
      sandbox: { workers: 2 },
      documents: { pdf: { max_pages: 3 }, html: {} },
      metrics: { token: "t" },
      tracing: { endpoint: "http://127.0.0.1:4318/v1/traces" },
    });
    expect([config.keepAliveMs, config.idleTimeoutSeconds, config.bodyLimitBytes]).toEqual([500, 255, 10 * MIB]);
    expect(config.agentLoop).toStrictEqual({ toolConcurrency: 2, toolTimeoutMs: 30_000 });
    expect(config.routing).toStrictEqual({ ...ROUTING, maxRetries: 0, breaker: { ...ROUTING.breaker, cooldownMs: 5 } });
    expect(config.limits).toStrictEqual({ ...LIMITS, rateLimit: { requests: 5, tokens: null, intervalSeconds: 60 } });
    expect(config.batches).toStrictEqual({ ...BATCHES, discount: 0.25 });
    expect(config.sandbox).toStrictEqual({ ...SANDBOX, workers: 2 });
    expect(config.documents).toStrictEqual({ ...DOCUMENTS, pdf: { ...DOCUMENTS.pdf, maxPages: 3 } });
    expect(config.metrics).toStrictEqual({ enabled: true, token: "t" });
    expect(config.tracing).toStrictEqual({
      url: "http://127.0.0.1:4318/v1/traces",
      headers: {},
      serviceName: "inference-gateway",
      sampleRatio: 1,
      queueSize: 8192,
      batchSize: 1024,
      delayMs: 1000,
    });
  });

  test("resolving leaves the file as it was read", () => {
    const file: ConfigFile = { routing: { breaker: {} }, documents: {} };
    const copy = structuredClone(file);
    resolved(file);
    expect(file).toStrictEqual(copy);
  });

  test("each default is a value its own schema accepts (a default cannot be one the file could not say)", () => {
    for (const section of SECTIONS) expect(Value.Errors(section, resolveDefaults(section, undefined)).First()).toBeUndefined();
  });
});
