/** Recording what an upstream cannot honour (README "Strict mode": never a silent drop). */
import type { Warning } from "../model/warnings.ts";

/**
 * Pushes an `unsupported_field` warning unless one for the same field is already listed, so a conversation with
 * fifty cache marks yields one warning, not fifty.
 */
export function warnUnsupported(list: Warning[], field: string, message: string): void {
  if (list.some((w) => w.code === "unsupported_field" && w.field === field)) return;
  list.push({ code: "unsupported_field", field, message });
}
