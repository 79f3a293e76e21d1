/**
 * Authentication before a body is read (issue 16 item 11): without it, anyone could make the gateway hold a
 * connection open for a body, no key needed. The app authenticates in its body parser, before the first byte; the
 * routes authenticate again as they always did, and get the same answer without a second look-up: one result per
 * request, kept by the request's `Headers` object (Bun hands out the same one on every access).
 */
import { credentialOf, type Authenticator } from "../auth/authenticate.ts";
import type { Principal } from "../auth/principal.ts";

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

/** The key hash of each request whose key was accepted, for the request log line of a refusal after that. */
const accepted = new WeakMap<Headers, string>();

/** The hash of the key `headers` authenticated with, once that succeeded (never the key itself). */
export function authenticatedKeyHash(headers: Headers): string | undefined {
  return accepted.get(headers);
}

export function oncePerRequest(auth: Authenticator): Authenticator {
  const done = new WeakMap<Headers, Promise<Principal>>();
  return {
    authenticate(headers) {
      let principal = done.get(headers);
      if (principal === undefined) {
        principal = auth.authenticate(headers).then((found) => {
          accepted.set(headers, found.keyHash);
          return found;
        });
        done.set(headers, principal);
      }
      return principal;
    },
  };
}
