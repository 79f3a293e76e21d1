/**
 * Every error on `/messages` in Anthropic's shape as well: `type: "error"` at the
 * top and `error.type` (`invalid_request_error`, `authentication_error`, `not_found_error`, …) beside the service
 * envelope's own fields, so Anthropic clients (their `err.type`) and ours (`code`, `metadata.error_type`) both read it.
 */
import type { GatewayError } from "../../errors.ts";
import type { ErrorEnvelope } from "../../http/envelope.ts";
import { anthropicErrorType } from "./result-fields.ts";

export function messagesErrorEnvelope(envelope: ErrorEnvelope, error: GatewayError): ErrorEnvelope {
  return Object.assign({ type: "error" }, envelope, { error: { type: anthropicErrorType(error.type), ...envelope.error } });
}
