/**
 * The envelope of an error the edge answers before any format is known (a 401, a 404 route, a body it refused):
 * Anthropic's shape as well (`type: "error"`, `error.type`) when the client is an Anthropic one — it called a
 * Messages path, or sent `anthropic-version` as every Anthropic SDK and Claude Code do — so that client reads the
 * error as it reads the errors of `/messages` itself.
 */
import { toGatewayError } from "../errors.ts";
import { messagesErrorEnvelope } from "../formats/messages/error-envelope.ts";
import { envelopeOf, type ErrorEnvelope } from "./envelope.ts";
import { pathOf } from "./url-path.ts";
import { noteRefusal } from "../pipeline/request-log.ts";

const MESSAGES_PATH = /\/messages(?:\/count_tokens)?\/*$/;

/** Whether `request` comes from an Anthropic client (its errors then carry Anthropic's shape too). */
export function anthropicClient(request: Request): boolean {
  return request.headers.has("anthropic-version") || MESSAGES_PATH.test(pathOf(request.url));
}

/** The envelope of the edge's refusal of `request`; notes its error type and message for the request's log line too. */
export function edgeEnvelope(request: Request, thrown: unknown): ErrorEnvelope {
  const error = toGatewayError(thrown);
  const envelope = envelopeOf(error);
  noteRefusal(request, error.type, envelope.error.message);
  return anthropicClient(request) ? messagesErrorEnvelope(envelope, error) : envelope;
}
