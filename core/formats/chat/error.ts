/** The chat in-band error object `{code, message, metadata{error_type}}` (spec "Errors", b11). */
import type { ErrorType } from "../../errors.ts";

/** What both a GatewayError and a canonical ResponseError provide. */
export interface ErrorLike {
  type: ErrorType;
  status: number;
  message: string;
  metadata?: Record<string, unknown> | undefined;
}

/** Rendered error: `code` is the HTTP-style status; `metadata.error_type` always carries the canonical type. */
export interface ChatError {
  code: number;
  message: string;
  metadata: Record<string, unknown> & { error_type: ErrorType };
}

/** Builds the error object; a 500 gets a generic message and no metadata besides `error_type`. */
export function chatError(error: ErrorLike): ChatError {
  if (error.status === 500) {
    return { code: 500, message: "Internal server error", metadata: { error_type: error.type } };
  }
  return { code: error.status, message: error.message, metadata: { ...error.metadata, error_type: error.type } };
}
