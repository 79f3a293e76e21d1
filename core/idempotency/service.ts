/**
 * Idempotent requests (README "Idempotent requests"). A request sent with an `Idempotency-Key` runs
 * once per API key, route and key for 24 h; a retry with the same body gets the first reply instead of a second
 * (billed) run:
 * - finished: the stored reply (store table `idempotency_replies`, so it survives restarts and is seen by every node);
 * - still running on this node: the retry joins it (same JSON, or the same event stream: what was sent so far, then
 *   the rest live);
 * - still running on another node: the retry waits, polling the kv claim and the store, until the reply is stored.
 * A claim in the kv (`setIfAbsent` with a lease, renewed while the request runs) makes exactly one node run it; a node
 * that dies leaves its claim to expire after the lease, and a waiting retry then runs the request itself.
 * Failures are not kept: a reply with status ≥ 400, or a stream that ended in an error, releases the key, so a retry
 * runs again (validation errors cost nothing; 402, 429 and 5xx are worth retrying). Nor is a reply past the cap
 * (config `idempotency.max_reply_bytes`): it releases the key as soon as it passes it, and is never replayed in part.
 * A stream is recorded as its client pulls it (core/idempotency/recorded-frames.ts), so it keeps its back-pressure.
 * The same key with another body is a 409 `precondition_failed`.
 */
import type { Deps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import type { IdempotentReply } from "../store/types.ts";
import { sha256Hex } from "./body-digest.ts";
import { DEFAULT_MAX_REPLY_BYTES } from "./recording.ts";
import { ReplyRecorder } from "./reply-recorder.ts";

/** How long a finished reply is replayed. */
export const REPLAY_TTL_MS = 24 * 60 * 60 * 1000;
/** How long a claim outlives its node: a crashed node's key is free again after this. */
export const LEASE_MS = 30_000;
const RENEW_MS = LEASE_MS / 3;
/** A retry waiting on another node polls at first quickly, then every half second. */
const FIRST_POLL_MS = 25;
const MAX_POLL_MS = 500;
const SWEEP_EVERY_MS = 60 * 60 * 1000;
/** Set on every reply that was not produced for this request (joined or stored), as Stripe does. */
export const REPLAYED_HEADER = "idempotent-replayed";
/** The reply headers a retry gets back; the rest (date, length) are the transport's own. */
const KEPT_HEADERS = ["content-type", "cache-control", "x-generation-id"];

export interface IdempotentCall {
  /** Whose key it is: the API key's hash (a key never reaches another API key's entry). */
  scope: string;
  route: string;
  key: string;
  bodyDigest: string;
  /** The client's signal: a retry waiting on another node stops when its client leaves. */
  signal: AbortSignal;
  /**
   * Runs the request (the first time only). Its own client leaving must not stop it — a retry is coming for it — so
   * the caller gives the pipeline a signal of its own. A streamed reply is rendered in `recorder.format(…)` from
   * `recorder.outcome(…)`, so that it is recorded as its client reads it.
   */
  run(recorder: ReplyRecorder): Promise<Response>;
}

/**
 * What a retry on this node gets from the running first attempt: a fresh reply, or nothing when it failed (or, for a
 * stream, once it passed the cap).
 */
type Joined = (() => Response | undefined) | undefined;

interface InFlight {
  bodyDigest: string;
  joined: Promise<Joined>;
}

export class IdempotencyService {
  private readonly running = new Map<string, InFlight>();
  private lastSweep = 0;
  private readonly maxReplyBytes: number;

  constructor(private readonly deps: Deps) {
    this.maxReplyBytes = deps.config.idempotency?.maxReplyBytes ?? DEFAULT_MAX_REPLY_BYTES;
  }

  async handle(call: IdempotentCall): Promise<Response> {
    const id = sha256Hex(`${call.scope}\n${call.route}\n${call.key}`);
    const claim = `gw:idem:${id}`;
    let pause = FIRST_POLL_MS;
    for (;;) {
      const local = this.running.get(id);
      if (local) {
        if (local.bodyDigest !== call.bodyDigest) throw mismatch();
        const reply = (await local.joined)?.();
        if (reply) return reply;
        continue; // the first attempt failed (or is past the cap) and released the key: this retry runs it
      }
      const stored = await this.stored(id);
      if (stored) return replayOf(stored, call);
      if (await this.deps.kv.setIfAbsent(claim, call.bodyDigest, LEASE_MS)) {
        // The first attempt (elsewhere) may have finished between the look-up and the claim; its reply is stored
        // before its claim goes, so looking once more settles it.
        const finished = await this.stored(id);
        if (!finished) return this.runFirst(id, claim, call);
        await this.deps.kv.del(claim);
        return replayOf(finished, call);
      }
      const holder = await this.deps.kv.get(claim);
      if (holder !== null && holder !== call.bodyDigest) throw mismatch();
      // Running on another node (or its claim just went): look again shortly, unless this client left.
      if (call.signal.aborted) throw new GatewayError("timeout", "The client closed the request");
      await Bun.sleep(pause);
      pause = Math.min(pause * 2, MAX_POLL_MS);
    }
  }

  /** Runs the first attempt under the claim; keeps its reply if it succeeded, then releases the claim. */
  private async runFirst(id: string, claim: string, call: IdempotentCall): Promise<Response> {
    let settle!: (joined: Joined) => void;
    // Registered before any await: a retry on this node from now on joins this attempt.
    this.running.set(id, { bodyDigest: call.bodyDigest, joined: new Promise<Joined>((resolve) => (settle = resolve)) });
    const renew = setInterval(() => void this.deps.kv.set(claim, call.bodyDigest, LEASE_MS).catch((err: unknown) => this.deps.logger.warn({ err }, "idempotency: lease renewal failed")), RENEW_MS);
    renew.unref?.();
    let released = false;
    // Once: a reply past the cap releases the key early, and by then the key may be another attempt's.
    const release = async () => {
      if (released) return;
      released = true;
      clearInterval(renew);
      this.running.delete(id);
      await this.deps.kv.del(claim).catch((err: unknown) => this.deps.logger.warn({ err }, "idempotency: claim release failed (it expires with its lease)"));
    };

    try {
      return await this.reply(id, call, settle, release);
    } catch (thrown) {
      // Nothing to keep: free the key for the next retry, and let retries waiting here run it themselves.
      await release();
      settle(undefined);
      throw thrown;
    }
  }

  /** The first attempt's reply to its own client; what retries get is handed to `settle`, kept ones stored. */
  private async reply(id: string, call: IdempotentCall, settle: (joined: Joined) => void, release: () => Promise<void>): Promise<Response> {
    const recorder = new ReplyRecorder(this.maxReplyBytes, () => void release());
    const response = await call.run(recorder);
    if (response.status >= 400 || response.body === null) {
      await release();
      settle(undefined);
      return response;
    }
    const { status } = response;
    const headers = keptHeaders(response.headers);

    if (!headers["content-type"]?.startsWith("text/event-stream")) {
      const body = await response.text();
      if (Buffer.byteLength(body) > this.maxReplyBytes) {
        // Past the cap: not kept, so retries (also those waiting here) run it again.
        await release();
        settle(undefined);
      } else {
        settle(() => replayed(status, headers, body));
        // The claim is released only once the reply is stored, so a retry elsewhere never finds neither.
        void this.keep(id, call.bodyDigest, status, headers, body).finally(release);
      }
      return new Response(body, { status, headers: response.headers });
    }

    if (!recorder.recorded) {
      // A stream that was not rendered through the recording: there is nothing to keep.
      await release();
      settle(undefined);
      return response;
    }
    const { recording } = recorder;
    void recording.finished
      .then(() => {
        const body = recording.kept();
        return body === undefined || recorder.failed ? undefined : this.keep(id, call.bodyDigest, status, headers, body);
      })
      .finally(release);
    settle(() => {
      const reader = recording.reader();
      return reader && new Response(reader, { status, headers: { ...headers, [REPLAYED_HEADER]: "true" } });
    });
    // The client's own stream: the recording observes it, it does not read it.
    return response;
  }

  /**
   * The finished reply, if any. A store that cannot be reached does not fail the request (inference goes on through
   * store outages): the kv claim still makes concurrent duplicates join, but a retry of a reply finished earlier may
   * run again until the store is back (logged).
   */
  private async stored(id: string): Promise<IdempotentReply | undefined> {
    try {
      return await this.deps.store.idempotency.get(id, this.deps.clock.now());
    } catch (err) {
      this.deps.logger.warn({ err }, "idempotency: stored replies unreadable; the request runs without them");
      return undefined;
    }
  }

  /** Stores a finished reply; a store that fails only costs the replay (logged), never the reply itself. */
  private async keep(id: string, bodyDigest: string, status: number, headers: Record<string, string>, body: string): Promise<void> {
    const now = this.deps.clock.now();
    const reply: IdempotentReply = { id, bodyDigest, status, headers, body, createdAt: now, expiresAt: now + REPLAY_TTL_MS };
    try {
      await this.deps.store.idempotency.put(reply);
    } catch (err) {
      this.deps.logger.warn({ err }, "idempotency: the reply could not be stored; a retry will run again");
    }
    if (now - this.lastSweep >= SWEEP_EVERY_MS) {
      this.lastSweep = now;
      void this.deps.store.idempotency.sweep(now).catch((err: unknown) => this.deps.logger.warn({ err }, "idempotency: sweep failed"));
    }
  }
}

/** One service per gateway (its in-flight table is this process's), shared by every route that takes the header. */
const services = new WeakMap<Deps, IdempotencyService>();

export function idempotencyOf(deps: Deps): IdempotencyService {
  let service = services.get(deps);
  if (!service) services.set(deps, (service = new IdempotencyService(deps)));
  return service;
}

function mismatch(): GatewayError {
  return new GatewayError("precondition_failed", "This Idempotency-Key was already used with a different request body", { status: 409, metadata: { param: "Idempotency-Key" } });
}

/** A stored reply for a retry with the same body; another body is the 409. */
function replayOf(stored: IdempotentReply, call: IdempotentCall): Response {
  if (stored.bodyDigest !== call.bodyDigest) throw mismatch();
  return replayed(stored.status, stored.headers, stored.body);
}

function keptHeaders(headers: Headers): Record<string, string> {
  const kept: Record<string, string> = {};
  for (const name of KEPT_HEADERS) {
    const value = headers.get(name);
    if (value !== null) kept[name] = value;
  }
  return kept;
}

function replayed(status: number, headers: Record<string, string>, body: string): Response {
  return new Response(body, { status, headers: { ...headers, [REPLAYED_HEADER]: "true" } });
}
