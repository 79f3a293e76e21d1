/**
 * Makes one image for a server tool (`service:image_generation`): picks the endpoints of the requested image model
 * (or the first image model), charges the model's per-image price to the request's bill BEFORE the call (held against
 * the key's credit limit, so concurrent calls can never spend past it), calls the adapter's `images` (or asks
 * `generate` for image output when the adapter has no images API), and refunds the charge when the call fails: a
 * failed image costs nothing, as a failed turn without output costs nothing (the hold stays extended until the bill
 * closes, which only ever holds more, never spends more). A retryable failure moves on to the next endpoint.
 *
 * Each call is one of the request's upstream attempts, as the model turn's are (core/pipeline/turn): bounded by the
 * same attempt time-out (a non-streamed call's), recorded in the request's attempts, and its retryable failure (a
 * time-out among them) or its answer reported to the endpoint's circuit breaker.
 */
import { roundUsd } from "../accounting/money.ts";
import { isGatewayError, toGatewayError } from "../errors.ts";
import type { RequestContext } from "../pipeline/context.ts";
import { attemptAnswered, attemptFailed, beginAttempt, reportEndpointFailure } from "../pipeline/turn/attempt-record.ts";
import { attemptDeadline } from "../pipeline/turn/deadline.ts";
import { attemptTimeoutMs } from "../pipeline/turn/timeouts.ts";
import type { Endpoint } from "../routing/catalog.ts";
import { profileOf } from "../routing/profile.ts";
import { imageEndpoints } from "./endpoints.ts";
import type { GeneratedImage, ImageCall, ImageGeneration, ImageGenerationRequest, ImageRequest } from "./types.ts";
import { imagesViaChat } from "./via-chat.ts";

export async function generateImage(ctx: RequestContext, toolId: string, request: ImageGenerationRequest, signal: AbortSignal): Promise<ImageGeneration> {
  const { model, ...image } = request;
  const endpoints = ordered(ctx, imageEndpoints(ctx.deps.catalog, model));
  if (endpoints.length === 0) throw new Error(model === undefined ? "no image model is configured" : `model "${model}" cannot make images on this gateway`);
  let failure: unknown;
  for (const endpoint of endpoints) {
    const price = roundUsd(endpoint.model.pricing.image ?? 0);
    const description = `image generation (${endpoint.model.id})`;
    // A 402 here ends the call (the model is told); it is not an endpoint failure, so nothing else is tried.
    const charge = price > 0 ? await ctx.bill.charge({ tool: toolId }, price, description) : undefined;
    const attempt = beginAttempt(ctx, endpoint);
    try {
      const made = await callEndpoint(ctx, endpoint, image, signal);
      attemptAnswered(ctx, attempt);
      ctx.deps.routing.health.recordSuccess(profileOf(endpoint).key);
      return { ...made, model: endpoint.model.id, provider: endpoint.provider.id, cost: price };
    } catch (thrown) {
      attemptFailed(ctx, attempt, toGatewayError(thrown));
      if (charge) ctx.bill.refund(charge);
      if (signal.aborted || !(isGatewayError(thrown) && thrown.retryable)) throw thrown;
      reportEndpointFailure(ctx, endpoint, thrown);
      failure = thrown;
    }
  }
  throw failure;
}

/** Healthy endpoints first; those whose breaker is open are tried last (as routing keeps them as a last resort). */
function ordered(ctx: RequestContext, endpoints: Endpoint[]): Endpoint[] {
  const open = (endpoint: Endpoint) => ctx.deps.routing.health.stateOf(profileOf(endpoint).key) === "open";
  return [...endpoints.filter((e) => !open(e)), ...endpoints.filter(open)];
}

/** One call, bounded like a non-streamed model attempt: its expiry aborts the upstream request and fails with a 408. */
async function callEndpoint(ctx: RequestContext, endpoint: Endpoint, request: ImageRequest, signal: AbortSignal): Promise<GeneratedImage> {
  const controller = new AbortController();
  if (signal.aborted) controller.abort(signal.reason);
  else signal.addEventListener("abort", () => controller.abort(signal.reason), { once: true });
  const deadline = attemptDeadline(attemptTimeoutMs(ctx, endpoint, { stream: false }), false, controller);
  const call: ImageCall = { request, target: endpoint.target, signal: controller.signal, helpers: ctx.deps.helpers };
  const adapter = endpoint.adapter;
  let images: GeneratedImage[];
  try {
    images = await Promise.race([adapter.images ? adapter.images(call) : imagesViaChat((c) => adapter.generate(c), call), deadline.expired]);
  } finally {
    deadline.cancel();
  }
  const first = images[0];
  if (first === undefined) {
    throw ctx.deps.helpers.error("provider_unavailable", "The provider returned no image", { status: 502, retryable: true, metadata: { provider_code: "no_image" } });
  }
  return first;
}
