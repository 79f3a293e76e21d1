/**
 * `GET /metrics`: the Prometheus text format. With `metrics.token` in the config a scraper must send it as a bearer
 * token (compared in constant time); without one the route is open, as scrapers on a private network expect. Served
 * at the root, beside `/api/v1`, where Prometheus looks by default.
 */
import { Elysia } from "elysia";
import { createHash, timingSafeEqual } from "node:crypto";
import type { Deps } from "../../deps.ts";
import { errors } from "../../errors.ts";
import { envelopeOf, errorResponse } from "../../http/envelope.ts";

export function metricsRoute(deps: Deps) {
  const metrics = deps.metrics;
  const token = deps.config.metrics?.token;
  const expected = token === undefined ? undefined : digest(token);
  return new Elysia({ name: "routes:metrics" }).get(
    "/metrics",
    async ({ request }) => {
      if (!metrics) {
        const error = errors.notFound("Metrics are turned off (config metrics.enabled)");
        return errorResponse(error, envelopeOf(error));
      }
      if (expected && !authorized(request.headers.get("authorization"), expected)) {
        const error = errors.unauthenticated("Metrics need the bearer token of the config's metrics.token");
        return errorResponse(error, envelopeOf(error), { "www-authenticate": 'Bearer realm="metrics"' });
      }
      return new Response(await metrics.render(), { headers: { "content-type": metrics.contentType } });
    },
    { detail: { summary: "Prometheus metrics (text exposition format); a bearer token when metrics.token is set", tags: ["operations"] } },
  );
}

/** Digests first: equal lengths for timingSafeEqual, and no early exit on the token's length. */
function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

function authorized(header: string | null, expected: Buffer): boolean {
  const match = header?.match(/^Bearer\s+(.+)$/i);
  return match !== null && match !== undefined && timingSafeEqual(digest(match[1]!.trim()), expected);
}
