/**
 * cache (README "Response cache"): answers a request from the response cache, or keeps its answer there. Inside
 * accounting (a hit is a generation of its own, billed nothing or `cache.read_price_factor` of what the answer cost)
 * and guardrails (a hit still passes the key's output checks; the key is made after input redaction), outside the
 * plugins (a hit runs none of their work, and what is kept is their final answer). A request that does not use the
 * cache costs a header lookup and a few property reads.
 */
import { CACHE_HEADER, cacheDecisionOf, type CacheDecision } from "../../cache/setting.ts";
import { cacheConfigOf, type CacheConfig } from "../../config/cache.ts";
import { answerOf, type CacheEntry } from "../../cache/entry.ts";
import { cacheKeyOf, type CacheKey } from "../../cache/key.ts";
import { keepable, skipReason } from "../../cache/rules.ts";
import { readEntry, writeEntry } from "../../cache/store.ts";
import { ResponseBuilder } from "../../model/collect.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { RequestContext } from "../context.ts";
import { responseOutcome, type Outcome, type StreamObserver } from "../outcome.ts";
import type { Stage } from "../stage.ts";

export const cacheStage: Stage = {
  name: "cache",
  run(ctx, next) {
    const workspaceId = ctx.principal?.record?.workspaceId;
    if (workspaceId === undefined) return next();
    const settings = cacheConfigOf(ctx.deps.config);
    const decision = cacheDecisionOf(ctx, settings);
    if (!decision) return next();
    return cached(ctx, next, workspaceId, decision, settings);
  },
};

async function cached(ctx: RequestContext, next: () => Promise<Outcome>, workspaceId: string, decision: CacheDecision, settings: CacheConfig): Promise<Outcome> {
  const skipped = decision.force ? undefined : skipReason(ctx, settings);
  ctx.cacheReport = skipped === undefined ? { status: "miss" } : { status: "miss", skipped };
  ctx.replyHeaders = { ...ctx.replyHeaders, [CACHE_HEADER]: "MISS" };
  if (skipped !== undefined) return next();
  const key = cacheKeyOf(workspaceId, ctx.request);
  if (!decision.clear) {
    const entry = await readEntry(ctx.deps, key);
    if (entry) return hit(ctx, entry, settings);
  }
  const outcome = await next();
  if (outcome.kind === "response") {
    if (keepable(outcome.response)) writeEntry(ctx.deps, settings, key, outcome.response, ctx.bill.total().total, decision.ttlSeconds);
  } else {
    outcome.observe(new StreamKeeper(ctx, settings, key, decision.ttlSeconds));
  }
  return outcome;
}

async function hit(ctx: RequestContext, entry: CacheEntry, settings: CacheConfig): Promise<Outcome> {
  const now = ctx.deps.clock.now();
  const ageSeconds = Math.max(0, Math.floor((now - entry.createdAt) / 1000));
  ctx.cacheReport = { status: "hit" };
  ctx.replyHeaders = {
    ...ctx.replyHeaders,
    [CACHE_HEADER]: "HIT",
    "x-service-cache-age": String(ageSeconds),
    "x-service-cache-ttl": String(entry.ttlSeconds),
    "x-service-cache-source-id": entry.sourceId,
  };
  ctx.pipeline.push({ type: "cache", name: "response-cache", status: "hit", source_id: entry.sourceId, age_seconds: ageSeconds });
  const price = entry.cost * settings.readPriceFactor;
  if (price > 0) await ctx.bill.charge({ cache: "response" }, price, `answer of ${entry.sourceId} from the response cache`);
  return responseOutcome(answerOf(entry, ctx.generationId, now));
}

/**
 * Builds the answer of a streamed miss as it passes and keeps it once the stream has ended on its own. One that
 * failed, was cut (the client left, the upstream broke off) or grew past `cache.max_entry_bytes` is dropped.
 */
class StreamKeeper implements StreamObserver {
  private builder: ResponseBuilder | undefined = new ResponseBuilder();
  private finished = false;
  private chars = 0;

  constructor(
    private readonly ctx: RequestContext,
    private readonly settings: CacheConfig,
    private readonly key: CacheKey,
    private readonly ttlSeconds: number,
  ) {}

  event(event: StreamEvent): StreamEvent {
    const builder = this.builder;
    if (builder === undefined) return event;
    if (event.type === "error") this.builder = undefined;
    else {
      if (event.type === "finish") this.finished = true;
      if ("delta" in event && typeof event.delta === "string") this.chars += event.delta.length;
      if (this.chars > this.settings.maxEntryBytes) this.builder = undefined;
      else builder.add(event);
    }
    return event;
  }

  fail(): void {
    this.builder = undefined;
  }

  end(): void {
    const builder = this.builder;
    this.builder = undefined;
    if (!builder || !this.finished || !keepable(builder.response)) return;
    writeEntry(this.ctx.deps, this.settings, this.key, builder.response, this.ctx.bill.total().total, this.ttlSeconds);
  }
}
