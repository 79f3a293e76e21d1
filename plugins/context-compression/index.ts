/**
 * context-compression (engine `middle-out`): when a turn's prompt does not fit the chosen endpoint's context window
 * minus the requested output (`max_tokens`), or carries more messages than the endpoint's adapter accepts, messages
 * are removed or cut from the middle (middle-out.ts) until it fits; when nothing can make it fit, a 400
 * `context_length_exceeded`. On by default for endpoints whose window is 8,192 tokens or less; named in a request
 * (or enabled by the operator) it applies to any endpoint. It wraps each turn: it routes the turn itself to learn
 * the endpoint, compresses for that endpoint, and calls the turn with that very decision (no second routing).
 */
import { Type } from "@sinclair/typebox";
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import { definePlugin } from "../../core/sdk/index.ts";
import type { PluginContext } from "../../core/sdk/index.ts";
import type { CatalogView, EndpointView } from "../../core/sdk/index.ts";
import { middleOut, type MiddleOutResult } from "./middle-out.ts";
import { byteBound, fixedTokens, messageTokens, tokenizer } from "../../core/sdk/index.ts";

/** Endpoints with a window this small get compression without asking (peer default). */
export const SMALL_WINDOW = 8_192;

/** Per catalog: whether a model has an endpoint with a small window (the catalog does not change at run time). */
const smallWindows = new WeakMap<CatalogView, Map<string, boolean>>();

/** Whether any model the request names may be served with a small window: the cheap test of every default turn. */
function mayHaveSmallWindow(catalog: CatalogView, request: CanonicalRequest): boolean {
  let known = smallWindows.get(catalog);
  if (!known) smallWindows.set(catalog, (known = new Map()));
  for (const id of [request.model, ...request.models]) {
    if (typeof id !== "string") continue;
    let small = known.get(id);
    if (small === undefined) {
      small = catalog.model(id)?.endpoints.some((e) => e.contextLength !== undefined && e.contextLength <= SMALL_WINDOW) ?? false;
      known.set(id, small);
    }
    if (small) return true;
  }
  return false;
}

interface Compressed {
  request: CanonicalRequest;
  report: Record<string, unknown>;
}

/** The request fitted to `endpoint`, undefined when it already fits; throws 400 when it cannot be made to fit. */
async function compress(ctx: PluginContext, request: CanonicalRequest, endpoint: EndpointView, window: number): Promise<Compressed | undefined> {
  const reserve = request.maxTokens ?? 0;
  const cap = endpoint.maxMessages;
  const available = window - reserve;
  const { system, tools, messages } = request;
  // Most prompts are far from the limit: their bytes already prove it, without loading the tokenizer.
  const withinCap = cap === undefined || messages.length <= cap;
  const bound = fixedTokens(system, tools, byteBound) + messages.reduce((sum, m) => sum + messageTokens(m, byteBound), 0);
  if (withinCap && bound <= available) return undefined;

  // The exact count, in slices; it stops once a count is past what could fit: the work is bounded by the window.
  const exact = (await tokenizer()).sliced();
  const fixed = await exact.fixed(system, tools, available);
  const result: MiddleOutResult =
    fixed > available
      ? { fits: false, minimumTokens: 0 }
      : await middleOut({ messages, budget: available - fixed, tokenizer: exact, ...(cap !== undefined ? { maxMessages: cap } : {}) });
  if (!result.fits) {
    const needed = fixed + result.minimumTokens;
    throw ctx.helpers.error(
      "context_length_exceeded",
      `The prompt cannot be compressed to fit ${endpoint.model}'s context window of ${window} tokens` +
        (reserve > 0 ? ` minus max_tokens ${reserve}` : "") +
        `: even with the middle removed it needs at least ${needed} tokens`,
      { metadata: { context_length: window, max_tokens: reserve, minimum_prompt_tokens: needed, model: endpoint.model } },
    );
  }
  if (result.removed === 0 && result.truncated === 0) return undefined;
  return {
    request: { ...request, messages: result.messages },
    report: {
      engine: "middle-out",
      input_type: "messages",
      original_count: messages.length,
      compressed_count: result.messages.length,
      truncated_count: result.truncated,
      prompt_tokens: fixed + result.tokens,
      context_length: window,
      endpoint: `${endpoint.model}@${endpoint.provider}`,
    },
  };
}

export default definePlugin({
  id: "context-compression",
  description: "Fits long prompts into the chosen endpoint's context window by removing or cutting messages from the middle (middle-out).",
  // Innermost of the built-ins: it compresses for the endpoint a turn really goes to, after routers chose the model.
  priority: 900,
  enabledByDefault: true,
  appliesTo: (request, catalog) => mayHaveSmallWindow(catalog, request),
  optionsSchema: Type.Object({ engine: Type.Optional(Type.Literal("middle-out")) }, { additionalProperties: false }),
  hooks: {
    async around(ctx, turn) {
      const request = ctx.request;
      // A plugin entry with another model inside the turn (a router's choice) is checked again here.
      if (!ctx.explicit && !mayHaveSmallWindow(ctx.catalog, request)) return turn(request);
      const route = await ctx.route(request);
      const endpoint = route.endpoints[0];
      const window = endpoint?.contextLength;
      // Models that only make images take no long prompts (peer behaviour): left alone.
      const imageOnly = endpoint?.outputModalities?.every((m) => m === "image") === true;
      if (!endpoint || window === undefined || imageOnly || (!ctx.explicit && window > SMALL_WINDOW)) return turn(request, { route });
      const compressed = await compress(ctx, request, endpoint, window);
      if (!compressed) return turn(request, { route });
      ctx.report(compressed.report);
      return turn(compressed.request, { route });
    },
  },
});
