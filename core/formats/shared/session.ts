/** A request's session: body `session_id` wins over the `x-session-id` header, which gets the same 256-character bound. */
import { errors } from "../../errors.ts";

const MAX_SESSION_ID = 256;

export function sessionOf(fromBody: string | undefined, headers: Headers): string | undefined {
  if (fromBody !== undefined) return fromBody;
  const header = headers.get("x-session-id");
  if (header === null || header === "") return undefined;
  if (header.length > MAX_SESSION_ID) throw errors.invalid(`The x-session-id header must be at most ${MAX_SESSION_ID} characters`, { param: "x-session-id" });
  return header;
}
