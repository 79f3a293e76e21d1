/**
 * What every request passes before the app sees it, and every answer after:
 * - a missing or unusable Host is a 400 envelope here (./host.ts), so no code downstream meets a URL it cannot parse;
 * - anything the app throws becomes the 500 envelope with an error line naming the cause — never the runtime's
 *   error page (core/serve.ts also turns Bun's development mode off and gives Bun an error handler of ours);
 * - every answer the pipeline does not log itself gets its request line (core/pipeline/request-log.ts);
 * - an answer given without reading the request's body (a 401 before the body, a 404) closes the connection: the
 *   unread rest would otherwise keep it open for as long as the client cares to trickle it.
 */
import type { Logger } from "pino";
import type { IdGenerator } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { logEdgeAnswer } from "../pipeline/request-log.ts";
import { pathOf } from "./url-path.ts";
import { clip } from "./clip.ts";
import { envelopeOf, errorResponse } from "./envelope.ts";
import { edgeEnvelope } from "./edge-envelope.ts";
import { hostError } from "./host.ts";

/** What the server hands requests to: a gateway, or (server.ts, while start-up waits for a store) a stand-in. */
export interface Front {
  readonly app: { handle(request: Request): Response | Promise<Response> };
  /** Where edge answers are logged and how their generation ids are made; a Gateway's `deps` fit. */
  readonly deps?: { readonly logger: Logger; readonly ids: IdGenerator };
}

/** Asks Bun to close the connection after `response` (a response with immutable headers is left as it is). */
function closeAfter(response: Response): void {
  try {
    response.headers.set("connection", "close");
  } catch {
    // Headers of a response that came from a fetch are immutable; no route of ours answers with one on this path.
  }
}

/** Ids when the front has no generator of its own (the same form as core/bootstrap.ts `randomIds`). */
const fallbackIds: IdGenerator = { id: (prefix) => prefix + Bun.randomUUIDv7().replaceAll("-", "") };

/** The server's `fetch` and `error` handlers for `front`; `front.app` is read per request, so it may be swapped. */
export function frontDoor(front: Front): { fetch(request: Request): Promise<Response>; error(error: Error): Response } {
  const reply = (error: GatewayError, request: Request | undefined) => {
    const envelope = request ? edgeEnvelope(request, error) : envelopeOf(error);
    return errorResponse(error, envelope, { "x-generation-id": (front.deps?.ids ?? fallbackIds).id("gen-") });
  };
  const failed = (thrown: unknown, request: Request | undefined) => {
    const where = request ? { method: request.method, path: clip(pathOf(request.url)) } : {};
    front.deps?.logger.error({ err: thrown, ...where }, "request failed");
    return reply(new GatewayError("server", "Internal server error", { cause: thrown }), request);
  };
  return {
    async fetch(request) {
      const startedAt = Date.now();
      const refused = hostError(request);
      let response: Response;
      if (refused) response = reply(refused, request);
      else {
        try {
          response = await front.app.handle(request);
        } catch (thrown) {
          response = failed(thrown, request);
        }
      }
      if (request.body !== null && !request.bodyUsed) closeAfter(response);
      if (front.deps) logEdgeAnswer(front.deps.logger, request, response, startedAt);
      return response;
    },
    // Bun calls this only when `fetch` itself throws, which the catch above prevents; it stays as the last word so
    // that nothing of the runtime's own error page can ever be sent.
    error: (error) => failed(error, undefined),
  };
}
