/**
 * call-with-fallbacks (the last step of a model turn): walks the routing candidates in order. A failed attempt is retried on the same endpoint when
 * the failure is transient (after Retry-After or a full-jitter backoff), else the next endpoint is tried; no new
 * attempt or pause starts after the retry deadline. Endpoints whose breaker opened meanwhile are skipped (routing
 * already put the ones open before it started last, as a last resort); a half-open one is probed by one request at
 * a time. Once a stream is handed on, nothing is retried, and nothing after the walk can be mistaken for an upstream
 * failure: the walk only ever sees its own attempts.
 *
 * The retry deadline bounds retries and pauses, not time-outs: an attempt that timed out used up its own bound
 * (timeouts.ts), so the deadline moves by as long as it waited, and the next endpoint still gets its attempt while
 * the client waits.
 */
import { routingOf, type RoutingConfig } from "../../config/routing-limits.ts";
import { GatewayError, isGatewayError, toGatewayError } from "../../errors.ts";
import { byokEndpoint, byokOf, credentialFor } from "../../byok/credentials.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { Warning } from "../../model/warnings.ts";
import type { CanonicalResponse } from "../../model/response.ts";
import { sleep } from "../../util/backoff.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { profileOf } from "../../routing/profile.ts";
import { pinProvider } from "../../routing/sticky.ts";
import type { EventStream } from "../../model/events.ts";
import type { Attempt, RequestContext, RouteState } from "../context.ts";
import { responseOutcome, streamOutcome, type Outcome } from "../outcome.ts";
import { attemptOnce, type AttemptOutcome } from "./attempt.ts";
import { attemptAnswered, attemptFailed, beginAttempt, reportEndpointFailure } from "./attempt-record.ts";
import { finalError, type Failure } from "./final-error.ts";
import { meterResponse, meterStream } from "./meter.ts";
import { refused, settleRefusal } from "./refusal.ts";
import { relay } from "./relay.ts";
import { retryDelay } from "./retry-policy.ts";
import type { TurnRoute } from "./route.ts";
import { attemptTimeoutMs } from "./timeouts.ts";

/** When retries and pauses must stop; moved on by the time attempts spent waiting until they timed out. */
interface Deadline {
  at: number;
}

/** The longest a refused stream is read on for its usage before the walk moves on. */
const REFUSAL_DRAIN_MS = 5_000;

/** What trying one endpoint came to: an outcome to hand on, or move on to the next endpoint, or stop walking. */
type EndpointResult = { outcome: AttemptOutcome; upstreamBody: (() => unknown) | undefined; warnings: Warning[] } | "next" | "stop";

/** One turn's walk: the request it sends and the route it walks (the endpoint that serves it goes to ctx.served). */
export interface Walk {
  readonly request: CanonicalRequest;
  readonly route: TurnRoute;
}

/**
 * Calls the route's candidates with retries and fallbacks; resolves with the turn's outcome or rejects with the
 * final error. The outcome is metered (meter.ts) before it is handed on.
 */
export async function callWithFallbacks(ctx: RequestContext, turn: Walk): Promise<Outcome> {
  const walking = walk(ctx, turn);
  if (!turn.request.stream) return walking;
  // A stream waits for its first output with full fallback and a normal error status — but only up to the
  // keep-alive interval. After that the 200 and SSE headers go out so the client gets keep-alive frames while
  // the walk (fallbacks included: no content has been sent) goes on; a final failure then arrives in-band.
  // Marked handled: when the walk outlives this race its failure is delivered by `deferred`, not here.
  walking.catch(() => undefined);
  const commit = delay(ctx.deps.config.keepAliveMs, ctx.signal);
  const first = await Promise.race([walking.then((outcome) => ({ outcome })), commit.promise]).finally(commit.cancel);
  if (first) return first.outcome;
  // Abandoned unread: the stream the walk hands on later (if any) is abandoned in turn.
  return streamOutcome(deferred(ctx, walking), () => void walking.then((outcome) => outcome.kind === "stream" && outcome.abandon(), () => undefined));
}

/** Tries the candidates in order; resolves with the outcome to hand on, or rejects with the final error. */
async function walk(ctx: RequestContext, turn: Walk): Promise<Outcome> {
  const settings = routingOf(ctx.deps.config);
  const { health } = ctx.deps.routing;
  const failures: Failure[] = [];
  const deadline: Deadline = { at: ctx.startedAt + settings.retryDeadlineMs };
  const { candidates, state: route } = turn.route;
  for (let index = 0; index < candidates.length; index++) {
    const endpoint = candidates[index]!;
    const key = profileOf(endpoint).key;
    const state = health.stateOf(key);
    const last = index === candidates.length - 1;
    // Opened during this walk (routing put endpoints that were already open last, as a last resort).
    if (state === "open" && !last && !route.cooling.has(endpoint)) continue;
    // Half-open: one request at a time probes it; the others try elsewhere while they can.
    if (state === "half-open" && !last && !(await health.acquireProbe(key, settings.firstByteTimeoutMs))) continue;
    const tier = route.tiers.get(endpoint);
    // A workspace's (or key's) own provider key replaces the operator's on its provider (README "Bring your own keys").
    const byok = ctx.byok ? byokFor(ctx, endpoint, failures) : undefined;
    if (byok === "skip") continue;
    let calling = byok ?? endpoint;
    let result = await tryEndpoint(ctx, turn.request, calling, tier, settings, failures, deadline);
    if (byok && typeof result === "string" && byokRefused(failures)) {
      // The provider refused the workspace's key: that workspace's failure alone (never a breaker's), reported as
      // such; the operator's key is tried instead only when the credential allows it.
      const entry = byokOf(byok)!.entry;
      failures[failures.length - 1]!.error = byokRefusal(endpoint, failures[failures.length - 1]!.error);
      if (!entry.byokOnly) {
        calling = endpoint;
        result = await tryEndpoint(ctx, turn.request, endpoint, tier, settings, failures, deadline);
      }
    }
    if (result === "stop") break;
    if (result === "next") continue;
    // Spec "Messages request": fallback models are tried when the primary fails *or refuses*. A refusal known
    // before anything reached the client moves on to the next model (other providers of the same model would
    // most likely refuse too), billed (refusal.ts); with no other model left, or no credit for another attempt,
    // it is returned as is.
    const nextModel = candidates.findIndex((c, i) => i > index && c.model.id !== endpoint.model.id);
    if (nextModel !== -1 && refused(result.outcome) && (await settleRefusal(ctx, endpoint, result.outcome, failures, Math.min(settings.idleTimeoutMs, REFUSAL_DRAIN_MS)))) {
      index = nextModel - 1;
      continue;
    }
    ctx.served = endpoint;
    ctx.log.provider = endpoint.provider.id;
    const served = calling;
    if (ctx.byok) ctx.byokServed = served !== endpoint;
    // The served attempt's warnings replace the shared list (same array, so a stream's later warnings show too).
    turn.request.warnings = result.warnings;
    return hand(ctx, turn, served, tier, result.outcome, result.upstreamBody);
  }
  throw finalError(failures, ctx.signal.aborted);
}

/**
 * The BYOK endpoint for `endpoint` when the request's workspace or key has a credential for its provider; "skip" when
 * it has one that cannot be used (undecryptable) and must not fall back to the operator's (the failure is recorded).
 */
function byokFor(ctx: RequestContext, endpoint: Endpoint, failures: Failure[]): Endpoint | "skip" | undefined {
  const entry = credentialFor(ctx.byok!, ctx.principal!.keyHash, endpoint);
  if (!entry) return undefined;
  if (entry.secret !== undefined) return byokEndpoint(endpoint, entry as typeof entry & { secret: string });
  if (!entry.byokOnly) return undefined;
  const now = ctx.deps.clock.now();
  const error = new GatewayError("authentication", `This workspace's provider key for ${endpoint.provider.id} cannot be read: GATEWAY_SECRET_KEY is not the key it was stored with`, {
    status: 401,
    metadata: { provider: endpoint.provider.id, byok: true },
  });
  const attempt: Attempt = { model: endpoint.model.id, providerId: endpoint.provider.id, startedAt: now, endedAt: now, status: 401, errorType: "authentication" };
  ctx.attempts.push(attempt);
  failures.push({ attempt, error });
  return "skip";
}

/** Whether the last failure is the provider refusing the credential (401 or 403). */
function byokRefused(failures: readonly Failure[]): boolean {
  const last = failures[failures.length - 1];
  return last !== undefined && credentialRefused(last.error);
}

/** The upstream answered 401 or 403: the credential it was sent was refused. */
function credentialRefused(error: GatewayError): boolean {
  const status = error.metadata?.provider_status;
  return status === 401 || status === 403;
}

/** The refusal as the client reads it: the workspace's own key was refused, not the client's gateway key. */
function byokRefusal(endpoint: Endpoint, upstream: GatewayError): GatewayError {
  const status = upstream.metadata?.provider_status;
  return new GatewayError("permission_denied", `The provider ${endpoint.provider.id} refused this workspace's own provider key (BYOK, HTTP ${String(status)}): update it with PATCH /byok/{id}`, {
    status: 403,
    metadata: { provider: endpoint.provider.id, byok: true, provider_code: status },
  });
}

/** Resolves undefined after `ms` (or when the client goes away): the keep-alive commit point of a stream. */
function delay(ms: number, signal: AbortSignal): { promise: Promise<undefined>; cancel(): void } {
  let timer: Timer | undefined;
  const promise = new Promise<undefined>((resolve) => {
    timer = setTimeout(resolve, ms);
    signal.addEventListener("abort", () => resolve(undefined), { once: true });
  });
  return { promise, cancel: () => clearTimeout(timer) };
}

/**
 * The events of a walk still in progress; its failure becomes the stream's in-band terminal error (and the turn's
 * recorded ending). The stream the walk hands on was metered by the walk itself.
 */
async function* deferred(ctx: RequestContext, walking: Promise<Outcome>): EventStream {
  let outcome: Outcome;
  try {
    outcome = await walking;
  } catch (thrown) {
    const error = toGatewayError(thrown);
    ctx.bill.turnFailed(error.status, error.type);
    yield { type: "error", error };
    return;
  }
  if (outcome.kind === "stream") yield* outcome.events;
}

/** Attempts one endpoint, retrying it while the failure is transient and the deadline allows. */
async function tryEndpoint(
  ctx: RequestContext,
  turnRequest: CanonicalRequest,
  endpoint: Endpoint,
  tier: string | undefined,
  settings: RoutingConfig,
  failures: Failure[],
  deadline: Deadline,
): Promise<EndpointResult> {
  const echo = turnRequest.stream && turnRequest.debug?.echoUpstreamBody === true;
  for (let retry = 0; ; retry++) {
    if (ctx.signal.aborted || (failures.length > 0 && ctx.deps.clock.now() >= deadline.at)) return "stop";
    const attempt = beginAttempt(ctx, endpoint, tier);
    let upstreamBody: unknown;
    const request = requestFor(turnRequest, tier);
    try {
      const outcome = await attemptOnce(ctx, endpoint, {
        request,
        timeoutMs: attemptTimeoutMs(ctx, endpoint, request),
        ...(echo ? { onUpstreamBody: (body: unknown) => void (upstreamBody = body) } : {}),
      });
      attemptAnswered(ctx, attempt);
      return { outcome, upstreamBody: echo ? () => upstreamBody : undefined, warnings: request.warnings };
    } catch (thrown) {
      const error = toGatewayError(thrown);
      attemptFailed(ctx, attempt, error);
      failures.push({ attempt, error });
      // A workspace's own provider key refused: its failure alone, never the endpoint's health (the walk decides).
      if (ctx.byok && credentialRefused(error) && byokOf(endpoint)) return "next";
      if (ctx.signal.aborted || !isGatewayError(thrown) || !error.retryable) return "stop";
      // The wait for a time-out is not retry time: the next endpoint must still get its chance.
      if (error.type === "timeout") deadline.at += attempt.endedAt! - attempt.startedAt;
      // One incident per request and endpoint, however many retries it took.
      if (retry === 0) reportEndpointFailure(ctx, endpoint, error);
      const wait = retryDelay(error, retry, settings, ctx.deps.routing.random);
      if (wait === undefined || ctx.deps.clock.now() + wait >= deadline.at) return "next";
      try {
        await sleep(wait, ctx.signal);
      } catch {
        return "stop";
      }
    }
  }
}

/**
 * The request as this attempt gets it: its own warnings list (what this adapter could not carry is recorded there,
 * and only the served attempt's list reaches the client) and the tier routing planned for it. A tier the endpoint
 * does not offer is never forwarded (it may be refused or billed differently); the default tier is sent as "not set".
 */
function requestFor(request: CanonicalRequest, tier: string | undefined): CanonicalRequest {
  const own = { ...request, warnings: [...request.warnings] };
  const asked = request.serviceTier;
  if (asked === undefined || tier === undefined || asked === tier) return own;
  if (tier === "default") return asked === "auto" ? own : { ...own, serviceTier: undefined };
  return { ...own, serviceTier: tier as CanonicalRequest["serviceTier"] };
}

/** The outcome the client gets, with health, statistics and stickiness wired to how it goes. */
function hand(ctx: RequestContext, turn: Walk, endpoint: Endpoint, tier: string | undefined, outcome: AttemptOutcome, upstreamBody: (() => unknown) | undefined): Outcome {
  const { health, stats } = ctx.deps.routing;
  const key = profileOf(endpoint).key;
  const reportTier = turn.request.serviceTier !== undefined ? tier : undefined;
  pin(ctx, turn.route.state, endpoint);
  if (outcome.kind === "response") {
    const seconds = (performance.now() - outcome.startedAt) / 1000;
    health.recordSuccess(key);
    stats.recordLatency(key, seconds);
    if (seconds > 0.001) stats.recordThroughput(key, outcome.response.usage.output.total / seconds);
    const response = stamp(ctx, turn.request, endpoint, outcome.response, reportTier);
    meterResponse(ctx, endpoint, response);
    return responseOutcome(response);
  }
  const opened = outcome.stream;
  const relayed = relay(opened, {
      idleTimeoutMs: routingOf(ctx.deps.config).idleTimeoutMs,
      ...(upstreamBody ? { upstreamBody } : {}),
      stamp: (event) =>
        event.type === "start"
          ? { ...event, id: ctx.generationId, model: endpoint.model.id, ...(reportTier && event.serviceTier === undefined ? { serviceTier: reportTier } : {}) }
          : event,
      onEnd: ({ error, outputTokens, endedAt }) => {
        if (error) {
          if (error.retryable || error.type === "timeout") health.recordFailure(key, error);
          return;
        }
        health.recordSuccess(key);
        stats.recordLatency(key, (opened.firstOutputAt - opened.startedAt) / 1000);
        const seconds = (endedAt - opened.firstOutputAt) / 1000;
        if (outputTokens > 0 && seconds > 0.001) stats.recordThroughput(key, outputTokens / seconds);
      },
  });
  meterStream(ctx, endpoint, relayed, turn.request);
  return relayed;
}

/** The client sees the gateway's generation id, the model id it asked for and the tier actually used. */
function stamp(ctx: RequestContext, request: CanonicalRequest, endpoint: Endpoint, response: CanonicalResponse, tier: string | undefined): CanonicalResponse {
  response.id = ctx.generationId;
  response.model = endpoint.model.id;
  if (tier !== undefined && response.serviceTier === undefined) response.serviceTier = tier;
  response.warnings.push(...request.warnings);
  return response;
}

/** Pins (or refreshes) the session's provider; off the hot path, and a kv failure only costs stickiness. */
function pin(ctx: RequestContext, route: RouteState, endpoint: Endpoint): void {
  const sticky = route.sticky;
  if (!sticky || sticky.model !== endpoint.model.id) return;
  const ttl = routingOf(ctx.deps.config).stickyTtlMs;
  pinProvider(ctx.deps.kv, sticky.key, endpoint.provider.id, sticky.pinned, ttl).catch((err: unknown) =>
    ctx.deps.logger.warn({ err }, "routing: sticky session could not be recorded"),
  );
}
