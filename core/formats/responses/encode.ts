/** Canonical response → non-streaming Responses result body (spec "Responses result"; ARCHITECTURE §3). */
import type { CanonicalResponse } from "../../model/response.ts";
import type { EncodeContext } from "../format.ts";
import { resultObject } from "./response-object.ts";

/** Renders the result; status `failed` (with `error` and `error_type`) when the response carries an error. */
export function encodeResponses(response: CanonicalResponse, ctx: EncodeContext): Record<string, unknown> {
  return resultObject(response, ctx);
}
