/** Prices usage with an endpoint's pricing (USD per token; `request` per call; `image` per generated image). */
import type { Pricing } from "../config/types.ts";
import type { Cost, Usage } from "../model/usage.ts";
import { roundUsd } from "./money.ts";

/**
 * Cached reads and writes are priced separately when the endpoint publishes those prices, otherwise at the prompt
 * price; reasoning tokens are part of output tokens unless a reasoning price is set. Generated images are output,
 * priced per image on top of the tokens (an endpoint without an image price bills them as the tokens it reports).
 */
export function costOf(usage: Usage, pricing: Pricing, failedWithoutOutput = false): Cost {
  // No-charge rule: zero output and an error finish costs nothing.
  if (failedWithoutOutput && usage.output.total === 0 && !usage.output.images) return { total: 0, input: 0, output: 0, upstream: null };
  const read = usage.input.cacheRead;
  const write = usage.input.cacheWrite;
  const plain = Math.max(0, usage.input.total - read - write);
  const input =
    plain * pricing.prompt + read * (pricing.cacheRead ?? pricing.prompt) + write * (pricing.cacheWrite ?? pricing.prompt);
  const reasoning = pricing.reasoning === undefined ? 0 : usage.output.reasoning;
  const images = (usage.output.images ?? 0) * (pricing.image ?? 0);
  const output = (usage.output.total - reasoning) * pricing.completion + reasoning * (pricing.reasoning ?? 0) + images;
  const total = roundUsd(input + output + (pricing.request ?? 0));
  return { total, input: roundUsd(input), output: roundUsd(output), upstream: usage.upstreamCost === undefined ? null : roundUsd(usage.upstreamCost) };
}

