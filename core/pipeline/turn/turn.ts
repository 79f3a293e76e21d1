/**
 * THE model turn, the one way anything calls an upstream: the request pipeline's agent loop, the
 * batch worker (through the pipeline), plugins and tests all come here. A turn routes its request (or reuses a
 * decision), calls the candidates with fallbacks, translates and meters, and resolves with an outcome or rejects
 * with a GatewayError. It is re-entrant: every active plugin's `around` hook wraps it and may call it zero, one or
 * several times, concurrently too; each call holds its own credit and is billed (on the request's bill).
 */
import type { CanonicalRequest } from "../../model/request.ts";
import type { Turn, TurnOptions } from "../../registry/plugin.ts";
import type { RequestContext } from "../context.ts";
import { checkedOutcome, type Outcome } from "../outcome.ts";
import type { ActivePlugin } from "../plugins/active.ts";
import { routeOf } from "./decision.ts";
import { callWithFallbacks } from "./fallbacks.ts";
import { routeTurn } from "./route.ts";

/** Runs one turn of `request` through the active plugins' `around` hooks (outermost first), then the model. */
export function runTurn(ctx: RequestContext, request: CanonicalRequest, options?: TurnOptions): Promise<Outcome> {
  // No plugin wraps turns on most requests: no closures then.
  if (!ctx.plugins.some(wrapsTurns)) return modelTurn(ctx, request, options);
  return layer(ctx, ctx.plugins.filter(wrapsTurns), 0)(request, options);
}

function wrapsTurns(active: ActivePlugin): boolean {
  return active.plugin.hooks.around !== undefined;
}

/** The turn as the plugin at `index` sees it: its own `around`, over the turn of the plugins after it. */
function layer(ctx: RequestContext, wrapping: readonly ActivePlugin[], index: number): Turn {
  const active = wrapping[index];
  if (!active) return (request, options) => modelTurn(ctx, request, options);
  const inner = layer(ctx, wrapping, index + 1);
  // Options a caller gave (a reused route decision) reach the model turn unless an inner plugin passes its own.
  const source = `plugin "${active.plugin.id}" around()`;
  return async (request, options) =>
    checkedOutcome(await active.plugin.hooks.around!(active.contextFor(request), options ? (next, own) => inner(next, own ?? options) : inner), source);
}

/**
 * Holds credit for the turn unless a reservation covers it (the request's own turn on the model one was made for: so
 * a plugin's sub-requests before it, a fusion panel or a judge, never take the answer's credit, and the answer's turn
 * cannot be refused for credit after they spent; README "Accounting, credits and rate limits"), routes (or reuses the
 * decision), then calls with fallbacks.
 */
async function modelTurn(ctx: RequestContext, request: CanonicalRequest, options?: TurnOptions): Promise<Outcome> {
  const holding = ctx.bill.turnStarts(request, ctx.subRequest === true);
  if (holding) await holding;
  const reused = options?.route ? routeOf(options.route) : undefined;
  const route = reused ?? (await routeTurn(ctx, request));
  if (reused) {
    ctx.candidates = reused.candidates;
    ctx.route = reused.state;
  }
  const outcome = await callWithFallbacks(ctx, { request, route });
  // Only a plugin can drop a turn's stream unread; without plugins the turn's stream is the request's reply.
  if (outcome.kind === "stream" && ctx.plugins.length > 0) ctx.bill.handedOut(outcome);
  return outcome;
}
