/**
 * The cache key (README "Response cache"): the workspace plus the request normalised — what decides the answer
 * (model and fallbacks, system and messages, tools and tool choice, sampling, output format, reasoning, routing
 * preferences, plugins, agent limits, provider-specific extras) and nothing that does not (`stream` and its usage
 * option, `user`, metadata, trace, session, debug, prompt-cache hints, warnings). Objects are written with their keys
 * sorted, so two bodies that differ only in key order share an entry; a streamed and a non-streamed request share one
 * too. The format is part of the key: each format's decoding has its own defaults.
 */
import { sha256Hex } from "../idempotency/body-digest.ts";
import type { CanonicalRequest } from "../model/request.ts";

/** The kv pool every entry lives in (its byte bound is `cache.max_total_bytes`). */
export const CACHE_POOL = "gw:cache";

export interface CacheKey {
  /** The entry's key in the pool. */
  key: string;
  /** Groups it can be dropped by: the workspace's, and the workspace's for the requested model (`DELETE /cache`). */
  groups: [string, string];
}

export function cacheKeyOf(workspaceId: string, request: CanonicalRequest): CacheKey {
  const model = requestedModel(request);
  const normalised = {
    format: request.format,
    model: request.model,
    models: request.models,
    system: request.system,
    messages: request.messages,
    tools: request.tools,
    toolChoice: request.toolChoice,
    parallelToolCalls: request.parallelToolCalls,
    sampling: request.sampling,
    maxTokens: request.maxTokens,
    output: request.output,
    reasoning: request.reasoning,
    provider: request.provider,
    serviceTier: request.serviceTier,
    speed: request.speed,
    plugins: request.plugins,
    maxToolCalls: request.maxToolCalls,
    stopWhen: request.stopWhen,
    modalities: request.modalities,
    passthrough: request.passthrough,
  };
  return { key: `${workspaceId}:${sha256Hex(stableJson(normalised))}`, groups: workspaceGroups(workspaceId, model) };
}

/** The model a request is filed under for `DELETE /cache?model=`: the one it asked for. */
export function requestedModel(request: CanonicalRequest): string {
  return request.model ?? request.models[0] ?? "";
}

/** The groups of a workspace: all its entries, and those of one model. */
export function workspaceGroups(workspaceId: string, model: string): [string, string] {
  return [`w:${workspaceId}`, `m:${workspaceId}:${sha256Hex(model).slice(0, 32)}`];
}

/** JSON with every object's keys sorted (undefined members left out, as JSON.stringify does). */
export function stableJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? "null" : stableJson(item))).join(",")}]`;
  const record = value as Record<string, unknown>;
  const members: string[] = [];
  for (const name of Object.keys(record).sort()) {
    const member = record[name];
    if (member === undefined || typeof member === "function") continue;
    members.push(`${JSON.stringify(name)}:${stableJson(member)}`);
  }
  return `{${members.join(",")}}`;
}
