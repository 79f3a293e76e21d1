/**
 * One upstream attempt against one endpoint, bounded in time (the bound: timeouts.ts). Non-streamed: the whole
 * call must finish within it. Streamed: the adapter's stream is read until its first output event (text, reasoning, a tool
 * call, usage or finish) within `firstByteTimeoutMs`; only then is it handed on. So an upstream that accepts the
 * request and then hangs, cuts the stream or reports an error before producing anything is still a failed
 * attempt — routing may retry or fall back, and the client never saw a byte (errors before the first token are a
 * normal HTTP error). A timeout aborts the upstream request and fails with 408 `timeout`, retryable.
 */
import type { GatewayError } from "../../errors.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { CanonicalRequest } from "../../model/request.ts";
import type { CanonicalResponse } from "../../model/response.ts";
import { addWarning, type Warning } from "../../model/warnings.ts";
import type { ModuleHelpers } from "../../registry/helpers.ts";
import type { ProviderCall } from "../../registry/provider.ts";
import type { Endpoint } from "../../routing/catalog.ts";
import { callRetrieval } from "../../retrieval/call.ts";
import { strictHelpers } from "../strict/guarded-fetch.ts";
import type { RequestContext } from "../context.ts";
import { attemptDeadline } from "./deadline.ts";
import { helpersFor } from "./provider-helpers.ts";

/** A stream that produced its first output, with what was read so far and the live remainder. */
export interface OpenedStream {
  buffered: StreamEvent[];
  rest: AsyncIterator<StreamEvent>;
  /** Aborts the upstream request (idle timeout, or the client's side is done). */
  abort(reason: GatewayError): void;
  /** The attempt's start and its first output, `performance.now()` ms, for latency statistics. */
  startedAt: number;
  firstOutputAt: number;
}

export type AttemptOutcome = { kind: "response"; response: CanonicalResponse; startedAt: number } | { kind: "stream"; stream: OpenedStream };

/** Options of one attempt. */
export interface AttemptOptions {
  request: CanonicalRequest;
  timeoutMs: number;
  /** Receives the exact upstream body (`debug.echo_upstream_body`). */
  onUpstreamBody?: (body: unknown) => void;
}

/** Runs one attempt; throws the attempt's GatewayError (or the adapter's bug) when it fails. */
export async function attemptOnce(ctx: RequestContext, endpoint: Endpoint, options: AttemptOptions): Promise<AttemptOutcome> {
  // The attempt's own signal: aborted by its timeouts, and by the client (forwarded by hand: cheaper than
  // AbortSignal.any, and the listener dies with the request's signal).
  const controller = new AbortController();
  if (ctx.signal.aborted) controller.abort(ctx.signal.reason);
  else ctx.signal.addEventListener("abort", () => controller.abort(ctx.signal.reason), { once: true });
  // The attempt's own warnings list (fallbacks.ts gives each attempt a copy): what `call.warn` reports goes there,
  // and only the served attempt's list reaches the client.
  const warnings = options.request.warnings;
  const call: ProviderCall = {
    request: options.request,
    target: endpoint.target,
    signal: controller.signal,
    helpers: attemptHelpers(ctx, endpoint, options.request.stream, warnings, controller),
    warn: (warning) => addWarning(warnings, warning),
    ...(options.onUpstreamBody ? { onUpstreamBody: options.onUpstreamBody } : {}),
  };
  const startedAt = performance.now();
  const stream = options.request.stream;
  const deadline = attemptDeadline(options.timeoutMs, stream, controller);
  const expired = deadline.expired;
  try {
    if (!stream) {
      // An embeddings or rerank request (README "Embeddings and rerank") calls `embed` / `rerank` instead.
      const response = await Promise.race([options.request.task === undefined ? endpoint.adapter.generate(call) : callRetrieval(endpoint, call), expired]);
      return { kind: "response", response, startedAt };
    }
    const events = await Promise.race([endpoint.adapter.stream(call), expired]);
    const iterator = events[Symbol.asyncIterator]();
    try {
      const opened = await Promise.race([firstOutput(iterator), expired]);
      return {
        kind: "stream",
        stream: { buffered: opened.buffered, rest: iterator, abort: (reason) => controller.abort(reason), startedAt, firstOutputAt: opened.at },
      };
    } catch (error) {
      // Whatever the reason (timeout, an error before output), the upstream stream is abandoned: release it.
      controller.abort(error);
      void iterator.return?.()?.catch(() => undefined);
      throw error;
    }
  } finally {
    deadline.cancel();
  }
}

/**
 * The adapter's helpers. A stream reads its body for minutes, a one-shot call at once: each gets the fetch suited to
 * it (deps.ts). In strict mode the fetch first refuses what the adapter reported through `call.warn` before calling
 * (strict/guarded-fetch.ts).
 */
function attemptHelpers(ctx: RequestContext, endpoint: Endpoint, stream: boolean, warnings: Warning[], controller: AbortController): ModuleHelpers {
  const helpers = helpersFor(stream ? ctx.deps.streamHelpers : ctx.deps.helpers, endpoint.provider);
  if (ctx.strict !== true) return helpers;
  const guard = { warnings, from: warnings.length, upstream: endpoint.provider.id, abort: (reason: GatewayError) => controller.abort(reason) };
  return strictHelpers(helpers, guard);
}

/** Reads until the first event the client would see as output; an `error` before it fails the attempt. */
async function firstOutput(iterator: AsyncIterator<StreamEvent>): Promise<{ buffered: StreamEvent[]; at: number }> {
  const buffered: StreamEvent[] = [];
  for (;;) {
    const { value, done } = await iterator.next();
    if (done) return { buffered, at: performance.now() };
    if (value.type === "error") throw value.error;
    buffered.push(value);
    if (isOutput(value)) return { buffered, at: performance.now() };
  }
}

/** Events that carry something for the client (as opposed to `start`, part starts and debug echoes). */
export function isOutput(event: StreamEvent): boolean {
  switch (event.type) {
    case "text-delta":
    case "reasoning-delta":
    case "tool-call-start":
    case "tool-call-delta":
    case "refusal-delta":
    case "image":
    case "audio":
    case "finish":
      return true;
    case "usage":
      // A prompt count reported before the first token (Gemini's first chunk, the simulator) is no output yet: an
      // upstream that hangs or fails after it may still be retried or fallen back from.
      return event.usage.output.total > 0;
    default:
      return false;
  }
}
