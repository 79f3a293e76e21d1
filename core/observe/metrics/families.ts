/**
 * The metric families the gateway exports (README "Metrics"), on a registry of their own per gateway (never
 * prom-client's global one: tests run several gateways in one process). Names follow Prometheus conventions: base
 * units (seconds, bytes, USD), `_total` for counters. Scrape-time gauges (open streams, breakers, the batch queue,
 * memory) are added by collectors.ts.
 */
import { Counter, Histogram, Registry } from "prom-client";

/** Request latency: from a few ms (cached or refused) to minutes (long streams and agent loops). */
const LATENCY_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Time to first token and tool calls: sub-second to tens of seconds. */
const SHORT_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export type MetricFamilies = ReturnType<typeof createFamilies>;

export function createFamilies(registry: Registry) {
  const registers = [registry];
  const REQUEST = ["route", "model", "provider", "status"] as const;
  const ENDPOINT = ["model", "provider"] as const;
  return {
    requests: new Counter({ name: "gateway_requests_total", help: "Inference requests (HTTP and batch items) by final status.", labelNames: REQUEST, registers }),
    requestSeconds: new Histogram({
      name: "gateway_request_duration_seconds",
      help: "Inference request duration, to the last byte of a stream.",
      labelNames: REQUEST,
      buckets: LATENCY_BUCKETS,
      registers,
    }),
    firstTokenSeconds: new Histogram({
      name: "gateway_time_to_first_token_seconds",
      help: "Streamed requests: time from arrival to the first content token.",
      labelNames: ["route", "model", "provider"],
      buckets: SHORT_BUCKETS,
      registers,
    }),
    tokens: new Counter({
      name: "gateway_tokens_total",
      help: "Tokens of metered model turns by kind (input, output, cache_read, cache_write, reasoning).",
      labelNames: [...ENDPOINT, "kind"],
      registers,
    }),
    costUsd: new Counter({ name: "gateway_cost_usd_total", help: "USD of metered model turns, at the endpoint's price.", labelNames: ENDPOINT, registers }),
    turns: new Counter({ name: "gateway_model_turns_total", help: "Metered model turns by unified finish reason.", labelNames: [...ENDPOINT, "finish_reason"], registers }),
    chargesUsd: new Counter({ name: "gateway_charges_usd_total", help: "USD charged for priced work of tools and plugins.", labelNames: ["source"], registers }),
    attempts: new Counter({
      name: "gateway_upstream_attempts_total",
      help: "Upstream attempts by outcome (success or the error type).",
      labelNames: [...ENDPOINT, "outcome"],
      registers,
    }),
    retries: new Counter({ name: "gateway_upstream_retries_total", help: "Attempts that retried the endpoint of the failed attempt before.", labelNames: ENDPOINT, registers }),
    fallbacks: new Counter({
      name: "gateway_fallbacks_total",
      help: "Moves to another endpoint or model after a failed attempt, by the endpoint left.",
      labelNames: ENDPOINT,
      registers,
    }),
    creditRefusals: new Counter({ name: "gateway_credit_refusals_total", help: "Requests refused for insufficient credits (402).", labelNames: ["route"], registers }),
    rateLimitHits: new Counter({ name: "gateway_rate_limit_hits_total", help: "Requests refused by a key's rate limit (429 from the gateway).", labelNames: ["route"], registers }),
    pipelineActions: new Counter({
      name: "gateway_pipeline_actions_total",
      help: "Entries plugins, guardrails and the agent loop reported (service_metadata.pipeline) by type and name.",
      labelNames: ["type", "name"],
      registers,
    }),
    toolCalls: new Counter({ name: "gateway_server_tool_calls_total", help: "Server-tool calls by tool and status.", labelNames: ["tool", "status"], registers }),
    toolSeconds: new Histogram({ name: "gateway_server_tool_duration_seconds", help: "Server-tool call duration.", labelNames: ["tool"], buckets: SHORT_BUCKETS, registers }),
    http: new Counter({
      name: "gateway_http_requests_total",
      help: "Every HTTP request by method, route template and status (also those refused before the pipeline: 400, 401, 404, 413).",
      labelNames: ["method", "route", "status"],
      registers,
    }),
    cacheHits: new Counter({ name: "gateway_response_cache_hits_total", help: "Requests answered from the response cache.", registers }),
    cacheMisses: new Counter({ name: "gateway_response_cache_misses_total", help: "Requests that used the response cache and were not in it.", registers }),
    cacheWrittenBytes: new Counter({ name: "gateway_response_cache_written_bytes_total", help: "Bytes of answers this process put in the response cache.", registers }),
    cacheEvictions: new Counter({ name: "gateway_response_cache_evictions_total", help: "Live entries dropped to keep the response cache within cache.max_total_bytes.", registers }),
    spansDropped: new Counter({ name: "gateway_trace_spans_dropped_total", help: "Spans dropped: export queue full, or the collector failed.", labelNames: ["reason"], registers }),
    spansExported: new Counter({ name: "gateway_trace_spans_exported_total", help: "Spans the collector accepted.", registers }),
  };
}
