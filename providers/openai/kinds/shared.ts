/** Body adjustments several kinds share (./<kind>.ts), and the description a kind table entry is built from. */
import type { DiscoveryCall, DiscoveredModel, ProviderCall, ProviderKind, Warning } from "../../../core/sdk/index.ts";
import { isPlainObject, warnUnsupported } from "../../../core/sdk/provider.ts";
import type { ChatQuirks } from "../quirks.ts";
import type { ChatRequestBody, WireMessage } from "../wire.ts";

/** One kind of OpenAI-compatible server. */
export interface KindSpec {
  description: string;
  defaultBaseUrl: string;
  /** A cloud API: a provider without `api_key` stops start-up. Local servers need none. */
  requiresKey: boolean;
  quirks: ChatQuirks;
  /** Local servers: their models are discovered from `GET {base_url}/models`. */
  discovers?: boolean;
  /** Request parameters (as `supported_parameters` names them) this server never takes: left out of its listings. */
  unsupported?: readonly string[];
  /** Its own embeddings call, where the server's differs from OpenAI's (the others keep the adapter's). */
  embed?: ProviderKind["embed"];
}

/** Drops the body fields this server refuses, each with a warning naming it (a 422 in strict mode). */
export function dropRefused(body: ChatRequestBody, refused: readonly string[], server: string, warnings: Warning[]): void {
  for (const field of refused) {
    if (body[field] === undefined) continue;
    delete body[field];
    warnUnsupported(warnings, field, `${server} refuses ${field}; it was not sent`);
  }
}

/**
 * `max_tokens` instead of `max_completion_tokens` for servers that only know the older name, unless the provider's
 * options ask for `max_completion_tokens` explicitly.
 */
export function useMaxTokens(body: ChatRequestBody, call: ProviderCall): void {
  if (body.max_completion_tokens === undefined || call.target.options.max_tokens_field === "max_completion_tokens") return;
  body.max_tokens = body.max_completion_tokens;
  delete body.max_completion_tokens;
}

/** Earlier reasoning is not sent back, in any field (servers that refuse it, or bill it as prompt). */
export function stripReasoningHistory(body: ChatRequestBody): void {
  for (const message of body.messages) {
    if (message.role !== "assistant") continue;
    const wire = message as Record<string, unknown>;
    delete wire.reasoning;
    delete wire.reasoning_details;
    delete wire.reasoning_content;
  }
}

/** `messages[].name`, for servers that refuse it; one warning however many messages had one. */
export function stripMessageNames(body: ChatRequestBody, server: string, warnings: Warning[]): void {
  let dropped = false;
  for (const message of body.messages as Array<WireMessage & { name?: string }>) {
    if (message.role === "tool" || message.name === undefined) continue;
    delete message.name;
    dropped = true;
  }
  if (dropped) warnUnsupported(warnings, "messages.name", `${server} refuses names on messages; they were not sent`);
}

/**
 * What the client asked of reasoning, as the on/off switch several servers have: true (asked for, or an effort
 * other than `none`), false (switched off, or effort `none`), undefined (not said).
 */
export function reasoningWanted(call: ProviderCall): boolean | undefined {
  const r = call.request.reasoning;
  if (r === undefined) return undefined;
  if (r.enabled === false || r.effort === "none") return false;
  if (r.enabled === true || r.effort !== undefined || r.maxTokens !== undefined) return true;
  return undefined;
}

/**
 * `GET {base_url}/models` of an OpenAI-compatible server → the models it serves, with the context length where the
 * server reports one: `max_model_len` (vLLM, SGLang), `context_length` / `max_context_length` /
 * `loaded_context_length` (LM Studio and others), `meta.n_ctx` (llama.cpp when it reports the served context).
 */
export async function listServedModels(call: DiscoveryCall): Promise<DiscoveredModel[]> {
  const headers: Record<string, string> = { accept: "application/json", ...(call.target.apiKey ? { authorization: `Bearer ${call.target.apiKey}` } : {}), ...call.target.headers };
  const response = await call.helpers.fetch(`${call.target.baseUrl.replace(/\/+$/, "")}/models`, { method: "GET", headers, signal: call.signal });
  if (!response.ok) throw new Error(`GET /models answered HTTP ${response.status}`);
  const body: unknown = await response.json();
  const data = isPlainObject(body) && Array.isArray(body.data) ? body.data : undefined;
  if (data === undefined) throw new Error("GET /models answered without a data list");
  const models: DiscoveredModel[] = [];
  for (const entry of data as unknown[]) {
    if (!isPlainObject(entry) || typeof entry.id !== "string" || entry.id === "") continue;
    const meta = isPlainObject(entry.meta) ? entry.meta : {};
    const context = [entry.max_model_len, entry.context_length, entry.loaded_context_length, entry.max_context_length, meta.n_ctx].find(
      (value) => typeof value === "number" && Number.isInteger(value) && value > 0,
    ) as number | undefined;
    models.push(context === undefined ? { id: entry.id } : { id: entry.id, contextLength: context });
  }
  return models;
}
