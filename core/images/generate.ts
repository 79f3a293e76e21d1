/**
 * Makes one image for a server tool (`service:image_generation`): picks the endpoints of the requested image model
 * (or the first image model), charges the model's per-image price against the key's credit limit BEFORE the call
 * (so concurrent calls can never spend past the limit), calls the adapter's `images` (or asks `generate` for image
 * output when the adapter has no images API), and takes the charge back when the call fails: a failed image costs
 * nothing, as a failed turn without output costs nothing. A retryable failure moves on to the next endpoint.
 */
import { roundUsd } from "../accounting/money.ts";
import { isGatewayError } from "../errors.ts";
import type { RequestContext } from "../pipeline/context.ts";
import { chargeRequest } from "../pipeline/turn/charge.ts";
import type { Spend } from "../pipeline/turn/spend.ts";
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
    if (price > 0) await chargeRequest(ctx, { tool: toolId }, price, description);
    try {
      const made = await callEndpoint(ctx, endpoint, image, signal);
      return { ...made, model: endpoint.model.id, provider: endpoint.provider.id, cost: price };
    } catch (thrown) {
      if (price > 0) withdrawCharge(ctx.spend, toolId, price, description);
      if (signal.aborted || !(isGatewayError(thrown) && thrown.retryable)) throw thrown;
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

async function callEndpoint(ctx: RequestContext, endpoint: Endpoint, request: ImageRequest, signal: AbortSignal): Promise<GeneratedImage> {
  const call: ImageCall = { request, target: endpoint.target, signal, helpers: ctx.deps.helpers };
  const adapter = endpoint.adapter;
  const images = adapter.images ? await adapter.images(call) : await imagesViaChat((c) => adapter.generate(c), call);
  const first = images[0];
  if (first === undefined) {
    throw ctx.deps.helpers.error("provider_unavailable", "The provider returned no image", { status: 502, retryable: true, metadata: { provider_code: "no_image" } });
  }
  return first;
}

/**
 * Takes back a charge this module made (the call failed). Charges with equal source, amount and description are
 * interchangeable, so removing the last such one is exact even while other calls charge concurrently. The credit
 * hold stays extended until the request settles, which only ever holds more, never spends more.
 */
function withdrawCharge(spend: Spend, source: string, amount: number, description: string): void {
  const index = spend.charges.findLastIndex((c) => c.source === source && c.amount === amount && c.description === description);
  if (index >= 0) spend.charges.splice(index, 1);
}
