/**
 * call-with-fallbacks: walks the routing candidates in order. A retryable failure before anything reached the
 * client moves on to the next endpoint; once a stream is handed to the client it is never retried.
 */
import { GatewayError, isGatewayError, toGatewayError } from "../../errors.ts";
import type { EventStream } from "../../model/events.ts";
import type { CanonicalResponse } from "../../model/response.ts";
import type { ProviderCall } from "../../registry/provider.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import type { Attempt, RequestContext } from "../context.ts";
import type { Stage } from "../stage.ts";

export const callWithFallbacksStage: Stage = {
  name: "call-with-fallbacks",
  async run(ctx, next) {
    const failures: Array<{ attempt: Attempt; error: GatewayError }> = [];
    for (const endpoint of ctx.candidates) {
      if (ctx.signal.aborted) break;
      const attempt: Attempt = { model: endpoint.model.id, providerId: endpoint.provider.id, startedAt: ctx.deps.clock.now() };
      ctx.attempts.push(attempt);
      try {
        await callOnce(ctx, endpoint);
      } catch (thrown) {
        const error = toGatewayError(thrown);
        attempt.endedAt = ctx.deps.clock.now();
        attempt.status = error.status;
        attempt.errorType = error.type;
        failures.push({ attempt, error });
        if (!error.retryable || !isGatewayError(thrown)) break;
        continue;
      }
      attempt.endedAt = ctx.deps.clock.now();
      attempt.status = 200;
      ctx.served = endpoint;
      ctx.log.provider = endpoint.provider.id;
      // Outside the try: a failure of a later stage is not an upstream failure and must never trigger a fallback.
      await next();
      return;
    }
    throw finalError(ctx, failures);
  },
};

async function callOnce(ctx: RequestContext, endpoint: Endpoint): Promise<void> {
  const echo = ctx.request.stream && ctx.request.debug?.echoUpstreamBody === true;
  let upstreamBody: unknown;
  const call: ProviderCall = {
    request: ctx.request,
    target: endpoint.target,
    signal: ctx.signal,
    helpers: ctx.deps.helpers,
    ...(echo ? { onUpstreamBody: (body: unknown) => void (upstreamBody = body) } : {}),
  };
  if (ctx.request.stream) {
    const events = await endpoint.adapter.stream(call);
    ctx.outcome = { kind: "stream", events: normalise(ctx, endpoint, events, echo ? () => upstreamBody : undefined) };
  } else {
    const response = await endpoint.adapter.generate(call);
    ctx.outcome = { kind: "response", response: stamp(ctx, endpoint, response) };
  }
}

/** The client sees the gateway's generation id and the model id it asked for (not the upstream's name for it). */
function stamp(ctx: RequestContext, endpoint: Endpoint, response: CanonicalResponse): CanonicalResponse {
  response.id = ctx.generationId;
  response.model = endpoint.model.id;
  response.warnings.push(...ctx.request.warnings);
  return response;
}

async function* normalise(ctx: RequestContext, endpoint: Endpoint, events: EventStream, upstreamBody: (() => unknown) | undefined): EventStream {
  if (upstreamBody) yield { type: "debug", upstreamBody: upstreamBody() };
  for await (const event of events) {
    yield event.type === "start" ? { ...event, id: ctx.generationId, model: endpoint.model.id } : event;
  }
}

function finalError(ctx: RequestContext, failures: Array<{ attempt: Attempt; error: GatewayError }>): GatewayError {
  const last = failures.at(-1);
  if (!last) {
    if (ctx.signal.aborted) return new GatewayError("timeout", "Client closed the request", { status: 408 });
    return new GatewayError("provider_unavailable", "No endpoint could serve this request", { status: 503 });
  }
  if (failures.length === 1) return last.error;
  const previous = failures.map(({ attempt, error }) => ({ provider: attempt.providerId, model: attempt.model, code: error.status, error_type: error.type }));
  return new GatewayError(last.error.type, last.error.message, {
    status: last.error.status,
    metadata: { ...last.error.metadata, previous_errors: previous },
    retryable: last.error.retryable,
  });
}
