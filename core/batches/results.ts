/**
 * Batch result entries (spec "Batch": result entry `{id, custom_id, response {body, request_id, status_code}}` or
 * `{…, error {message, param, type, error_type}}`: exactly one of the two).
 */
import type { ErrorType } from "../errors.ts";
import type { BatchItemRecord } from "../store/types/batches.ts";

/** The `error` of a failed request. */
export interface ResultError {
  message: string;
  param: string | null;
  /** OpenAI-style category, for clients that switch on it (see `errorCategory`). */
  type: string;
  /** The canonical type (spec "Errors" `error_type`). */
  error_type: ErrorType;
}

/** OpenAI-style error `type` by HTTP status; `error_type` carries the exact canonical type beside it. */
export function errorCategory(status: number): string {
  if (status === 401) return "authentication_error";
  if (status === 402) return "insufficient_quota";
  if (status === 403) return "permission_error";
  if (status === 404) return "not_found_error";
  if (status === 408 || status === 504 || status === 524) return "timeout_error";
  if (status === 409) return "conflict_error";
  if (status === 429) return "rate_limit_error";
  if (status >= 500) return "server_error";
  return "invalid_request_error";
}

/** A result error from a status, canonical type and message. */
export function resultError(status: number, errorType: ErrorType, message: string, param: string | null = null): ResultError {
  return { message, param, type: errorCategory(status), error_type: errorType };
}

/** Requests a batch could not run: their fixed errors. */
export const ITEM_ERRORS = {
  expired: resultError(408, "timeout", "The batch expired (24h completion window) before this request finished"),
  cancelled: { message: "The batch was cancelled before this request ran", param: null, type: "cancelled", error_type: "precondition_failed" } satisfies ResultError,
  keyInvalid: resultError(401, "authentication", "The API key that submitted this batch is no longer valid"),
};

/** The entry of one finished item; null for an item that has not ended. */
export function resultEntry(item: BatchItemRecord): Record<string, unknown> | null {
  if (item.status === "completed" && item.result) return { id: item.id, custom_id: item.customId, response: item.result };
  if (item.status === "failed") return { id: item.id, custom_id: item.customId, error: item.error ?? resultError(500, "server", "Internal server error") };
  return null;
}
