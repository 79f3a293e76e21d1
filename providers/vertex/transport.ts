/**
 * Vertex's side of a call, given to the Gemini or Anthropic translation as its `helpers.fetch`: the OAuth bearer
 * token (fetched here, after the translation built the body, so strict mode has refused what it refuses first), and
 * for Claude the request reshaped as Vertex takes it — `:rawPredict` / `:streamRawPredict` on the model's URL, the
 * body without `model` and with `anthropic_version`, no `anthropic-version` header. Vertex's own refusals (quota,
 * credentials, an unknown model) are mapped here (./errors.ts); the model's own error replies are handed back to the
 * translation, which maps them in its dialect. A 401 drops the token and the call is sent once more with a new one
 * (the call never reached a model); nothing else is retried here (the gateway's fallbacks decide).
 */
import type { CanonicalRequest, FetchFunction, ModuleHelpers, ProviderCall } from "../../core/sdk/index.ts";
import { googleError, mapVertexError, VERTEX_STATUSES } from "./errors.ts";
import type { VertexPlan } from "./plan.ts";

type Operation = "generate" | "stream";

/** The call as the translation gets it: Vertex's request, target and fetch. */
export function vertexCall(call: ProviderCall, plan: VertexPlan, request: CanonicalRequest, operation: Operation): ProviderCall {
  const out: ProviderCall = { ...call, request, target: plan.inner, helpers: vertexHelpers(call.helpers, plan, operation) };
  // `debug.echo_upstream_body` shows the body as Vertex gets it.
  if (plan.publisher === "anthropic" && call.onUpstreamBody !== undefined) {
    const echo = call.onUpstreamBody;
    out.onUpstreamBody = (body) => echo(asVertexAnthropic(body, plan));
  }
  return out;
}

/** The call helpers with Vertex's fetch (bearer token, Vertex's refusals mapped), cached per helpers object. */
export function vertexHelpers(helpers: ModuleHelpers, plan: VertexPlan, operation: Operation): ModuleHelpers {
  const cache = plan.helpers[operation];
  let wrapped = cache.get(helpers);
  if (wrapped === undefined) {
    wrapped = { ...helpers, fetch: vertexFetch(helpers, plan, operation) };
    cache.set(helpers, wrapped);
  }
  return wrapped;
}

function vertexFetch(helpers: ModuleHelpers, plan: VertexPlan, operation: Operation): FetchFunction {
  const base = helpers.fetch;
  const anthropic = plan.publisher === "anthropic";
  const claudeUrl = operation === "stream" ? plan.streamRawPredictUrl : plan.rawPredictUrl;
  return async (input, init = {}) => {
    const url = anthropic ? claudeUrl : input;
    let headers = plainHeaders(init.headers);
    let body = init.body;
    if (anthropic) {
      const { "anthropic-version": _version, "x-api-key": _key, ...rest } = headers;
      headers = rest;
      if (typeof body === "string") body = vertexAnthropicBody(body, plan);
    }
    for (let attempt = 0; ; attempt++) {
      const token = await plan.tokens.token({ fetch: base, helpers, signal: init.signal });
      const response = await base(url, { ...init, body, headers: { ...headers, authorization: `Bearer ${token}` } });
      if (response.ok) return response;
      if (response.status === 401) {
        // An expired or revoked token: once more with a new one, when one can be had.
        if (attempt === 0 && plan.tokens.invalidate(token)) {
          await response.body?.cancel().catch(() => undefined);
          continue;
        }
        if (attempt === 0) {
          // A fixed token cannot be renewed (they last an hour): the operator has to give a new one.
          helpers.logger.warn({ provider: plan.inner.providerId, status: 401 }, "Vertex AI refused the configured access token; check credentials.access_token (it may have expired)");
        }
      }
      return await refusal(response, helpers, init.signal);
    }
  };
}

/**
 * A non-2xx reply: Vertex's own refusals are thrown mapped; the model's error replies are handed to the translation
 * (re-made, as their body was read to tell them apart).
 */
async function refusal(response: Response, helpers: ModuleHelpers, signal: AbortSignal | null | undefined): Promise<Response> {
  let text: string;
  try {
    text = await response.text();
  } catch (thrown) {
    if (signal?.aborted) throw thrown;
    text = "";
  }
  const body = parse(text);
  // A 404 in Anthropic's shape is Claude's own (`not_found_error`); any other (Google's NOT_FOUND, a wrong base_url's
  // HTML page) is Vertex not serving the model at that URL.
  if (VERTEX_STATUSES.has(response.status) && (response.status !== 404 || googleError(body) !== undefined || !isAnthropicError(body))) {
    throw mapVertexError(response.status, body, response.headers, helpers.error);
  }
  return new Response(text, { status: response.status, statusText: response.statusText, headers: response.headers });
}

/**
 * The Anthropic translation's body as Vertex takes it. The translation writes `model` first, so the usual case is a
 * prefix swap of the serialised text (no second parse of a large body); anything else is parsed and rebuilt.
 */
export function vertexAnthropicBody(text: string, plan: VertexPlan): string {
  if (text.startsWith(plan.modelPrefix)) return plan.versionPrefix + text.slice(plan.modelPrefix.length);
  return JSON.stringify(asVertexAnthropic(JSON.parse(text) as unknown, plan));
}

function asVertexAnthropic(body: unknown, plan: VertexPlan): unknown {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return body;
  const { model: _model, ...rest } = body as Record<string, unknown>;
  return { anthropic_version: plan.anthropicVersion, ...rest };
}

function isAnthropicError(body: unknown): boolean {
  return typeof body === "object" && body !== null && (body as { type?: unknown }).type === "error";
}

function plainHeaders(headers: RequestInit["headers"]): Record<string, string> {
  if (headers === undefined || headers === null) return {};
  if (headers instanceof Headers || Array.isArray(headers)) return Object.fromEntries(new Headers(headers));
  return headers as Record<string, string>;
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}
