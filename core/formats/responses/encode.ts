/** Canonical response → non-streaming Responses result body (spec "Responses result"). */
import type { CanonicalResponse } from "../../model/response.ts";
import { warn, type Warning } from "../../model/warnings.ts";
import type { EncodeContext } from "../format.ts";
import { resultObject } from "./response-object.ts";

/** Renders the result; status `failed` (with `error` and `error_type`) when the response carries an error. */
export function encodeResponses(response: CanonicalResponse, ctx: EncodeContext): Record<string, unknown> {
  for (const part of response.parts) if (part.type === "audio") warnAudioDropped(ctx.request.warnings);
  return resultObject(response, ctx);
}

/** Responses has no audio output item (OpenAI speaks only through chat completions): audio is dropped, said so. */
export function warnAudioDropped(warnings: Warning[]): void {
  warn(warnings, "unsupported_field", "output", "Audio output cannot be shown in a Responses result and was dropped");
}
