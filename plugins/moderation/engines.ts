/**
 * The moderation plugin's classifier engines, configured in the config's `plugins.moderation` (never in a request):
 * - `local` (default): the lexicon of local.ts, offline.
 * - `openai`: an OpenAI-compatible `POST {base_url}/moderations` (`{model, input: [texts]}` → `results[].flagged,
 *   categories`), e.g. OpenAI's own or a self-hosted one; `api_key` as a string or `{"env": "VAR"}`.
 * - `llm`: a judge, any model of this gateway (`model`), asked in a request of its own (billed with this one).
 * An engine that fails makes the request fail with a 503 (it could not be checked), unless `on_error: "allow"`.
 */
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import type { PluginContext } from "../../core/sdk/index.ts";
import { classifyLocally, LOCAL_MODEL } from "./local.ts";

export interface Classification {
  /** Categories per input, in order (empty: not flagged). */
  results: string[][];
  provider: string;
  model: string;
}

export interface EngineOptions {
  engine?: "local" | "openai" | "llm";
  base_url?: string;
  api_key?: string | { env: string };
  model?: string;
  timeout_ms?: number;
}

const DEFAULT_TIMEOUT_MS = 10_000;

export async function classify(ctx: PluginContext, options: EngineOptions, inputs: readonly string[]): Promise<Classification> {
  const engine = options.engine ?? "local";
  if (engine === "openai") return viaModerationsApi(ctx, options, inputs);
  if (engine === "llm") return viaJudge(ctx, options, inputs);
  return { results: inputs.map(classifyLocally), provider: "local", model: LOCAL_MODEL };
}

function apiKeyOf(key: EngineOptions["api_key"]): string | undefined {
  if (typeof key === "string") return key;
  return key ? process.env[key.env] : undefined;
}

async function viaModerationsApi(ctx: PluginContext, options: EngineOptions, inputs: readonly string[]): Promise<Classification> {
  const base = (options.base_url ?? "https://api.openai.com/v1").replace(/\/+$/, "");
  const model = options.model ?? "omni-moderation-latest";
  const key = apiKeyOf(options.api_key);
  // base_url is the operator's (a request's entry takes no options, index.ts): the upstream client, as for providers.
  const res = await ctx.upstreamFetch(`${base}/moderations`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { authorization: `Bearer ${key}` } : {}) },
    body: JSON.stringify({ model, input: inputs }),
    signal: AbortSignal.any([ctx.signal, AbortSignal.timeout(options.timeout_ms ?? DEFAULT_TIMEOUT_MS)]),
  });
  if (!res.ok) throw new Error(`moderation endpoint answered HTTP ${res.status}`);
  const body = (await res.json()) as { model?: string; results?: Array<{ flagged?: boolean; categories?: Record<string, boolean> }> };
  if (!Array.isArray(body.results) || body.results.length !== inputs.length) throw new Error("moderation endpoint answered without one result per input");
  const results = body.results.map((r) => (r.flagged ? Object.entries(r.categories ?? {}).filter(([, on]) => on).map(([name]) => name) : []));
  // Flagged with no category named: still flagged.
  body.results.forEach((r, i) => {
    if (r.flagged && results[i]!.length === 0) results[i]!.push("flagged");
  });
  return { results, provider: hostOf(base), model: body.model ?? model };
}

const JUDGE_INSTRUCTIONS = `You are a content moderation classifier. For each numbered input, list the harm categories it falls in, from:
harassment, harassment/threatening, hate, hate/threatening, illicit, illicit/violent, self-harm, self-harm/intent, self-harm/instructions, sexual, sexual/minors, violence, violence/graphic.
Answer with one JSON object and nothing else: {"results": [[<categories of input 0>], [<categories of input 1>], ...]} (an empty list when an input is harmless).`;

async function viaJudge(ctx: PluginContext, options: EngineOptions, inputs: readonly string[]): Promise<Classification> {
  const model = options.model;
  if (!model) throw new Error("the llm moderation engine needs `model` (a model of this gateway)");
  const request: CanonicalRequest = {
    format: ctx.request.format,
    model,
    models: [],
    system: [{ type: "text", text: JUDGE_INSTRUCTIONS }],
    messages: [{ role: "user", parts: [{ type: "text", text: inputs.map((t, i) => `Input ${i}:\n${t}`).join("\n\n") }] }],
    tools: [],
    sampling: { temperature: 0 },
    maxTokens: 64 + 32 * inputs.length,
    output: { format: { type: "json_object" } },
    stream: false,
    plugins: [],
    warnings: [],
    original: {},
  };
  const answer = await ctx.complete(request, { signal: AbortSignal.timeout(options.timeout_ms ?? DEFAULT_TIMEOUT_MS) });
  const text = answer.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("");
  const json = JSON.parse(text.slice(text.indexOf("{"), text.lastIndexOf("}") + 1)) as { results?: unknown };
  if (!Array.isArray(json.results) || json.results.length !== inputs.length || !json.results.every((r) => Array.isArray(r) && r.every((c) => typeof c === "string"))) {
    throw new Error("the moderation judge answered without one category list per input");
  }
  return { results: json.results as string[][], provider: answer.provider, model };
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname;
  } catch {
    return "openai";
  }
}
