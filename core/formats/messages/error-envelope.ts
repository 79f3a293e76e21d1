/**
 * A 403 on `/messages` (a guardrail block, a refused beta feature, a management key) in Anthropic's shape as well
 * (reference §5: "on Messages an Anthropic `permission_error` envelope"): `type: "error"` and `error.type:
 * "permission_error"` beside the service envelope's own fields, so Anthropic clients and ours both read it.
 */
import type { GatewayError } from "../../errors.ts";
import type { ErrorEnvelope } from "../../http/envelope.ts";
import { anthropicErrorType } from "./result-fields.ts";

export function messagesErrorEnvelope(envelope: ErrorEnvelope, error: GatewayError): ErrorEnvelope {
  if (error.type !== "permission_denied") return envelope;
  return Object.assign({ type: "error" }, envelope, { error: { type: anthropicErrorType(error.type), ...envelope.error } });
}
