/**
 * Authentication before a body is read: without it, anyone could make the gateway hold a
 * connection open for a body, no key needed. The app authenticates in its body parser, before the first byte; the
 * routes authenticate again as they always did, and get the same answer without a second look-up: one result per
 * request, kept in the request's edge record (./edge-record.ts).
 */
import { credentialOf, type Authenticator } from "../auth/authenticate.ts";
import { edgeRecordOf } from "./edge-record.ts";

/**
 * The body of a request that sent no credentials at all, which is never read: the route's own authentication then
 * refuses it with the route's own words (the batch routes say "No credentials found"). Every route that takes a
 * body authenticates before it validates, so this value never reaches a handler.
 */
export const UNREAD_BODY: Readonly<Record<string, never>> = Object.freeze({});

/** Whether a request carries any credential to check (`Authorization: Bearer …` or `x-api-key`). */
export function hasCredential(request: Request): boolean {
  return credentialOf(request.headers) !== undefined;
}

export function oncePerRequest(auth: Authenticator): Authenticator {
  return {
    authenticate(headers) {
      const record = edgeRecordOf(headers);
      return (record.principal ??= auth.authenticate(headers).then((found) => {
        record.keyHash = found.keyHash;
        return found;
      }));
    },
  };
}
