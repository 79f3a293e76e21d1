/**
 * How long one attempt may wait for its upstream.
 *
 * A stream must show its first output within the first-byte time-out. A non-streamed call is different: an
 * upstream usually answers only once the whole generation is done, so a legitimate long answer must not be cut by a
 * bound meant for the first token. Its bound is therefore max(`routing.request_timeout_ms`, margin × the tokens it
 * may generate ÷ the endpoint's output speed): the request's `max_tokens` (else the model's `max_output_tokens`, else
 * `limits.default_max_output_tokens`), at the speed the provider declares, else the one measured for the endpoint,
 * else `routing.assumed_output_tokens_per_second`. A provider's `timeouts` replace any of these.
 *
 * When the bound expires the attempt fails with a retryable 408 and the walk moves on (fallbacks.ts), while the
 * client keeps waiting for the next endpoint's answer.
 */
import { limitsOf, routingOf } from "../../config/routing-limits.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { profileOf } from "../../routing/profile.ts";
import type { RequestContext } from "../context.ts";

/** The bound of one call; an image call asks it as a non-streamed one (`{ stream: false }`, the model's own maximum). */
export function attemptTimeoutMs(ctx: RequestContext, endpoint: Endpoint, request: Pick<CanonicalRequest, "stream" | "maxTokens">): number {
  const settings = routingOf(ctx.deps.config);
  const own = endpoint.provider.timeouts;
  if (request.stream) return own?.firstByteMs ?? settings.firstByteTimeoutMs;
  if (own?.requestMs !== undefined) return own.requestMs;
  const tokens = request.maxTokens ?? endpoint.model.maxOutputTokens ?? limitsOf(ctx.deps.config).defaultMaxOutputTokens;
  const speed = own?.outputTokensPerSecond ?? measuredSpeed(ctx, endpoint) ?? settings.assumedOutputTokensPerSecond;
  const margin = own?.margin ?? settings.requestTimeoutMargin;
  return Math.max(settings.requestTimeoutMs, Math.ceil((margin * tokens * 1000) / speed));
}

/** How long a measured speed is reused: reading it sorts the endpoint's samples, too dear for every call. */
const SPEED_TTL_MS = 1_000;
const speeds = new WeakMap<Endpoint, { at: number; value: number | undefined }>();

/** The endpoint's median output speed, when it has been measured (here or by another gateway process). */
function measuredSpeed(ctx: RequestContext, endpoint: Endpoint): number | undefined {
  const now = performance.now();
  const cached = speeds.get(endpoint);
  if (cached && now - cached.at < SPEED_TTL_MS) return cached.value;
  const p50 = ctx.deps.routing.stats.throughput(profileOf(endpoint).key)?.p50;
  const value = p50 !== undefined && p50 > 0 ? p50 : undefined;
  speeds.set(endpoint, { at: now, value });
  return value;
}
