/**
 * Canonical request → Gemini `generateContent` body, URL and headers (a Portkey-style `request`
 * transform). What Gemini cannot honour is pushed onto `request.warnings`; gateway-level fields (routing, plugins,
 * agent limits, trace, debug) are consumed by the pipeline and are not upstream fields.
 */
import type { CanonicalRequest, ReasoningSettings, UpstreamTarget, Warning } from "../../core/sdk/index.ts";
import { refuseNativeServerTool, resolveDeferredTools, warn, warnAsyncTools, warnMessageNames, warnSpeed, warnUnsupported } from "../../core/sdk/provider.ts";
import { toContents, toSystemInstruction } from "./contents.ts";
import { readGeminiOptions, type ResolvedGeminiOptions } from "./options.ts";
import type { GeminiFunctionDeclaration, GeminiGenerationConfig, GeminiRequestBody, GeminiThinkingConfig } from "./wire.ts";

/** `${baseUrl}/models/{model}:generateContent`, or `:streamGenerateContent?alt=sse` (SSE framing) when streaming. */
export function geminiUrl(baseUrl: string, upstreamModel: string, stream: boolean): string {
  const model = upstreamModel.replace(/^models\//, "");
  const root = `${baseUrl.replace(/\/+$/, "")}/models/${model}`;
  return stream ? `${root}:streamGenerateContent?alt=sse` : `${root}:generateContent`;
}

/** `x-goog-api-key`; target headers last so an operator can override anything. */
export function geminiHeaders(target: UpstreamTarget): Record<string, string> {
  const headers: Record<string, string> = {};
  if (target.apiKey) headers["x-goog-api-key"] = target.apiKey;
  return { ...headers, ...target.headers };
}

/** Builds the exact body POSTed upstream (the same for both operations; streaming is chosen by the URL). */
export function toGeminiBody(canonical: CanonicalRequest, target: UpstreamTarget): GeminiRequestBody {
  const request = resolveDeferredTools(canonical, "gemini");
  const warnings = request.warnings;
  const options = readGeminiOptions(target.options, target.upstreamModel);
  const body: GeminiRequestBody = { contents: toContents(request.messages, warnings, options.signaturePlaceholder) };
  const system = toSystemInstruction(request.system, warnings);
  if (system !== undefined) body.systemInstruction = system;
  applyTools(body, request, options, warnings);
  const config = generationConfig(request, options, warnings);
  if (Object.keys(config).length > 0) body.generationConfig = config;
  warnDropped(request, warnings);
  return body;
}

function applyTools(body: GeminiRequestBody, request: CanonicalRequest, options: ResolvedGeminiOptions, warnings: Warning[]): void {
  const declarations: GeminiFunctionDeclaration[] = [];
  request.tools.forEach((tool, i) => {
    if (tool.kind === "server") {
      refuseNativeServerTool(tool, i, "gemini"); // the client asked for a search this adapter cannot run: a 400
      warnUnsupported(warnings, `tools[${i}]`, `Server tool ${tool.type} cannot be run by Gemini and was not sent`);
      return;
    }
    const declaration: GeminiFunctionDeclaration = { name: tool.name };
    if (tool.description !== undefined) declaration.description = tool.description;
    if (tool.parameters !== undefined) {
      if (options.schemaMode === "json_schema") declaration.parametersJsonSchema = tool.parameters;
      else declaration.parameters = tool.parameters;
    }
    if (tool.cache !== undefined) warnUnsupported(warnings, "cache_control", "Gemini caches prompts implicitly; cache_control marks were not sent");
    if (tool.strict !== undefined) warnUnsupported(warnings, `tools[${i}].strict`, "Gemini has no strict flag on functions; it was not sent");
    declarations.push(declaration);
  });
  if (declarations.length === 0) return;
  body.tools = [{ functionDeclarations: declarations }];
  const choice = request.toolChoice;
  if (choice?.type === "tool") body.toolConfig = { functionCallingConfig: { mode: "ANY", allowedFunctionNames: [choice.name] } };
  else if (choice?.type === "required") body.toolConfig = { functionCallingConfig: { mode: "ANY" } };
  else if (choice?.type === "none") body.toolConfig = { functionCallingConfig: { mode: "NONE" } };
  else if (choice?.type === "auto") body.toolConfig = { functionCallingConfig: { mode: "AUTO" } };
  if (request.parallelToolCalls === false || (choice?.type === "tool" && choice.disableParallel)) {
    warnUnsupported(warnings, "parallel_tool_calls", "Gemini cannot turn parallel function calls off; the setting was not sent");
  }
}

function generationConfig(request: CanonicalRequest, options: ResolvedGeminiOptions, warnings: Warning[]): GeminiGenerationConfig {
  const s = request.sampling;
  const config: GeminiGenerationConfig = {};
  if (s.temperature !== undefined) config.temperature = s.temperature;
  if (s.topP !== undefined) config.topP = s.topP;
  if (s.topK !== undefined) config.topK = s.topK;
  if (request.maxTokens !== undefined) config.maxOutputTokens = request.maxTokens;
  if (s.stop !== undefined && s.stop.length > 0) config.stopSequences = s.stop;
  if (s.seed !== undefined) config.seed = s.seed;
  if (s.presencePenalty !== undefined) config.presencePenalty = s.presencePenalty;
  if (s.frequencyPenalty !== undefined) config.frequencyPenalty = s.frequencyPenalty;
  const unsupported: Array<[keyof typeof s, string]> = [
    ["minP", "min_p"],
    ["repetitionPenalty", "repetition_penalty"],
    ["logprobs", "logprobs"],
    ["topLogprobs", "top_logprobs"],
    ["logitBias", "logit_bias"],
  ];
  for (const [key, field] of unsupported) {
    if (s[key] !== undefined) warnUnsupported(warnings, field, `Gemini does not support ${field} here; it was not sent`);
  }
  const format = request.output?.format;
  if (format?.type === "json_object") config.responseMimeType = "application/json";
  else if (format?.type === "json_schema") {
    config.responseMimeType = "application/json";
    if (options.schemaMode === "json_schema") config.responseJsonSchema = format.schema;
    else config.responseSchema = format.schema;
  }
  if (request.output?.verbosity !== undefined) warnUnsupported(warnings, "verbosity", "Gemini does not support verbosity; it was not sent");
  const modalities = responseModalities(request.modalities);
  if (modalities !== undefined) config.responseModalities = modalities;
  const thinking = thinkingConfig(request.reasoning, options, warnings);
  if (thinking !== undefined) config.thinkingConfig = thinking;
  return config;
}

/** `modalities` → `responseModalities` (Gemini's names are upper case: TEXT, IMAGE, AUDIO). */
function responseModalities(modalities: string[] | undefined): string[] | undefined {
  if (modalities === undefined || modalities.length === 0) return undefined;
  return modalities.map((m) => m.toUpperCase());
}

/** Effort → thinking budget for Gemini 2.5. */
const EFFORT_BUDGET: Record<NonNullable<ReasoningSettings["effort"]>, number> = {
  none: 0,
  minimal: 512,
  low: 1024,
  medium: 8192,
  high: 24576,
  xhigh: 32768,
  max: 32768,
};

/** Effort → thinking level for Gemini 3. */
const EFFORT_LEVEL: Record<NonNullable<ReasoningSettings["effort"]>, string> = {
  none: "minimal",
  minimal: "minimal",
  low: "low",
  medium: "medium",
  high: "high",
  xhigh: "high",
  max: "high",
};

/** Reasoning → `thinkingConfig`; thoughts are requested whenever reasoning is on, so summaries reach the client. */
function thinkingConfig(r: ReasoningSettings | undefined, options: ResolvedGeminiOptions, warnings: Warning[]): GeminiThinkingConfig | undefined {
  if (r === undefined) return undefined;
  const off = r.enabled === false || r.effort === "none";
  if (options.thinkingStyle === "level" && r.maxTokens === undefined) {
    if (off) {
      warn(warnings, "approximated", "reasoning", "Gemini 3 cannot switch thinking off; the minimal level was sent");
      return { thinkingLevel: "minimal" };
    }
    return r.effort === undefined ? { includeThoughts: true } : { thinkingLevel: EFFORT_LEVEL[r.effort], includeThoughts: true };
  }
  if (off) return { thinkingBudget: 0 };
  if (r.maxTokens === undefined && r.effort === undefined) return { includeThoughts: true };
  return { thinkingBudget: r.maxTokens ?? EFFORT_BUDGET[r.effort ?? "medium"], includeThoughts: true };
}

/**
 * Passthrough keys that are not upstream fields: `route` is read by the routing stage, `include` only asks for
 * reasoning state that Gemini returns anyway (thought signatures).
 */
const NOT_UPSTREAM_FIELDS: ReadonlySet<string> = new Set(["route", "include"]);

/** Request fields Gemini has no place for, reported once each. */
function warnDropped(request: CanonicalRequest, warnings: Warning[]): void {
  if (request.cache?.control !== undefined) warnUnsupported(warnings, "cache_control", "Gemini caches prompts implicitly; cache_control marks were not sent");
  if (request.metadata && Object.keys(request.metadata).length > 0) warnUnsupported(warnings, "metadata", "Gemini has no request metadata; it was not sent");
  if (request.user !== undefined) warnUnsupported(warnings, "user", "Gemini has no end-user field; user was not sent");
  if (request.safetyIdentifier !== undefined) warnUnsupported(warnings, "safety_identifier", "Gemini has no end-user field; safety_identifier was not sent");
  // Gemini's explicit caching is a cache resource created ahead (cachedContents), not a per-request key or option.
  if (request.cache?.promptCacheKey !== undefined) warnUnsupported(warnings, "prompt_cache_key", "Gemini caches prompts implicitly; prompt_cache_key was not sent");
  if (request.cache?.options !== undefined) warnUnsupported(warnings, "prompt_cache_options", "Gemini caches prompts implicitly; prompt_cache_options were not sent");
  warnSpeed(request, "Gemini", warnings);
  warnAsyncTools(request, "Gemini", warnings);
  warnMessageNames(request, "Gemini", warnings);
  for (const key of Object.keys(request.passthrough ?? {})) {
    if (NOT_UPSTREAM_FIELDS.has(key)) continue;
    warnUnsupported(warnings, `passthrough.${key}`, `Provider-specific fields (${key}) only apply to their own upstream and were not sent to Gemini`);
  }
}
