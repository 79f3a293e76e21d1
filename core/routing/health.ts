/**
 * A circuit breaker per endpoint, shared by every gateway process through the kv.
 *
 * - closed: traffic flows. Each retryable upstream failure increments a TTL'd counter in the kv (failures within
 *   `failureWindowMs` since the last success); at `failureThreshold` the breaker opens.
 * - open: the endpoint is skipped by routing for `cooldownMs` (longer when the upstream's Retry-After says so). The
 *   cooldown is written to the kv (so a process started later sees it) and published, so every running process
 *   stops sending to the endpoint at once, without a kv read per request.
 * - half-open: once the cooldown has passed, one request at a time (a kv lock) probes the endpoint; success closes
 *   the breaker everywhere, failure opens it again.
 *
 * Routing reads only the local map, so checking health costs nothing on the hot path; kv writes happen on failures
 * and on the first success after them, never awaited by the request.
 */
import type { Logger } from "pino";
import type { Clock } from "../deps.ts";
import type { GatewayError } from "../errors.ts";
import type { Kv } from "../kv/kv.ts";
import { throttledError } from "../util/throttled-log.ts";

export type BreakerState = "closed" | "open" | "half-open";

export interface BreakerSettings {
  failureThreshold: number;
  failureWindowMs: number;
  cooldownMs: number;
}

interface Entry {
  /** Failures seen by this process since the last success (within the window). */
  fails: number;
  firstFailAt: number;
  /** Unix ms the cooldown ends; meaningful while `tripped`. */
  until: number;
  tripped: boolean;
}

const CHANNEL = "gw:health";
const FAILS = "gw:health:fails:";
const COOLDOWN = "gw:health:cooldown:";
const PROBE = "gw:health:probe:";
/** A Retry-After never keeps an endpoint out for longer than this. */
const MAX_COOLDOWN_MS = 5 * 60_000;

type Message = { k: string; u: number } | { k: string; closed: true };

/** Breaker state for every endpoint, keyed by `EndpointProfile.key`. */
export class EndpointHealth {
  private readonly entries = new Map<string, Entry>();
  private readonly logError: (err: unknown, message: string) => void;

  constructor(
    private readonly kv: Kv,
    private readonly clock: Clock,
    logger: Logger,
    private readonly settings: BreakerSettings,
  ) {
    this.logError = throttledError(logger);
  }

  /** Subscribes to other processes' trips and loads cooldowns that are already running. */
  async start(keys: readonly string[]): Promise<void> {
    await this.kv.subscribe(CHANNEL, (raw) => this.onMessage(raw));
    await this.load(keys);
  }

  /** Loads the cooldowns already running for these endpoints (ones added after start-up: discovered models). */
  async load(keys: readonly string[]): Promise<void> {
    const now = this.clock.now();
    await Promise.all(
      keys.map(async (key) => {
        const until = Number(await this.kv.get(COOLDOWN + key));
        if (until > now) this.trip(key, until, false);
      }),
    );
  }

  stateOf(key: string, now = this.clock.now()): BreakerState {
    const entry = this.entries.get(key);
    if (!entry?.tripped) return "closed";
    return now < entry.until ? "open" : "half-open";
  }

  /** When the cooldown of an open endpoint ends (0 when not open). */
  cooldownUntil(key: string): number {
    const entry = this.entries.get(key);
    return entry?.tripped ? entry.until : 0;
  }

  /** Counts a retryable upstream failure; opens the breaker at the threshold (or at once when half-open). */
  recordFailure(key: string, error: GatewayError): void {
    const now = this.clock.now();
    const entry = this.entry(key);
    if (entry.fails > 0 && now - entry.firstFailAt > this.settings.failureWindowMs) entry.fails = 0;
    if (entry.fails === 0) entry.firstFailAt = now;
    entry.fails++;
    const cooldown = this.cooldownFor(error);
    if (entry.tripped && now >= entry.until) {
      // The half-open probe failed.
      this.open(key, now + cooldown);
      return;
    }
    if (entry.fails >= this.settings.failureThreshold) {
      if (this.stateOf(key, now) !== "open") this.open(key, now + cooldown);
      return;
    }
    // Other processes' failures count too: the shared counter decides when this process alone has not seen enough.
    this.kv
      .incrBy(FAILS + key, 1, this.settings.failureWindowMs)
      .then((count) => {
        if (count >= this.settings.failureThreshold && this.stateOf(key) !== "open") this.open(key, this.clock.now() + cooldown);
      })
      .catch((err: unknown) => this.logError(err, "routing: endpoint health update failed (kv unreachable)"));
  }

  /** A success closes the breaker here and everywhere; free when there was nothing to close. */
  recordSuccess(key: string): void {
    const entry = this.entries.get(key);
    if (!entry || (entry.fails === 0 && !entry.tripped)) return;
    const wasTripped = entry.tripped;
    this.entries.delete(key);
    const writes = [this.kv.del(FAILS + key)];
    if (wasTripped) writes.push(this.kv.del(COOLDOWN + key), this.kv.del(PROBE + key), this.kv.publish(CHANNEL, JSON.stringify({ k: key, closed: true })));
    Promise.all(writes).catch((err: unknown) => this.logError(err, "routing: endpoint health update failed (kv unreachable)"));
  }

  /** Half-open: only one request at a time may probe. A kv failure lets the probe through (fail open). */
  async acquireProbe(key: string, ttlMs: number): Promise<boolean> {
    try {
      return await this.kv.setIfAbsent(PROBE + key, "1", ttlMs);
    } catch (err) {
      this.logError(err, "routing: endpoint probe lock failed (kv unreachable)");
      return true;
    }
  }

  private cooldownFor(error: GatewayError): number {
    const asked = error.retryAfter === undefined ? 0 : Math.min(MAX_COOLDOWN_MS, error.retryAfter * 1000);
    return Math.max(this.settings.cooldownMs, asked);
  }

  private open(key: string, until: number): void {
    this.trip(key, until, true);
    const ttl = Math.max(1, until - this.clock.now());
    Promise.all([this.kv.set(COOLDOWN + key, String(until), ttl), this.kv.del(PROBE + key), this.kv.publish(CHANNEL, JSON.stringify({ k: key, u: until }))]).catch(
      (err: unknown) => this.logError(err, "routing: endpoint cooldown could not be shared (kv unreachable)"),
    );
  }

  private trip(key: string, until: number, local: boolean): void {
    const entry = this.entry(key);
    entry.tripped = true;
    entry.until = local ? until : Math.max(entry.until, until);
    if (local) entry.fails = 0;
  }

  private onMessage(raw: string): void {
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if ("closed" in message) this.entries.delete(message.k);
    else if (message.u > this.clock.now()) this.trip(message.k, message.u, false);
  }

  private entry(key: string): Entry {
    let entry = this.entries.get(key);
    if (!entry) {
      entry = { fails: 0, firstFailAt: 0, until: 0, tripped: false };
      this.entries.set(key, entry);
    }
    return entry;
  }
}
