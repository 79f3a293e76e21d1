/**
 * What the edge learns about one HTTP request while it passes — the principal its key resolved to, the refusal it
 * answered with, whether the pipeline writes its log line, the digest of its body — kept in one slot of the request's
 * own `Headers` object: Bun hands out that same object on every access, the route's authentication sees only the
 * headers, and the record goes away with the request. (Side tables keyed by the request cost each request an entry in
 * a weak map, and scattered what one request's edge knew across four modules.)
 */
import type { Principal } from "../auth/principal.ts";

export interface EdgeRecord {
  /** The one authentication of this request (core/http/auth-first.ts): the body parser or the route, whichever asks first. */
  principal?: Promise<Principal>;
  /** The hash of the key that authenticated, once it did (never the key itself): the refusal's log line names it. */
  keyHash?: string;
  /** The error the edge refused the request with (core/http/edge-envelope.ts), for the request's log line. */
  refusal?: { type: string; message: string };
  /** Set when an inference route hands the request to the pipeline, whose renderer then writes its log line. */
  pipelineLogs?: true;
  /** SHA-256 of the raw body bytes, taken only for a request with an `Idempotency-Key` (core/idempotency/). */
  bodyDigest?: string;
}

const SLOT = Symbol("gateway.edge");

type WithRecord = Headers & { [SLOT]?: EdgeRecord };

/** The request's record, made on first use. */
export function edgeRecordOf(headers: Headers): EdgeRecord {
  return ((headers as WithRecord)[SLOT] ??= {});
}

/** The request's record if anything was noted yet (a look without making one). */
export function edgeRecordIfAny(headers: Headers): EdgeRecord | undefined {
  return (headers as WithRecord)[SLOT];
}
