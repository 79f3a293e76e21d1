/** Warnings: what a translation dropped or approximated, recorded instead of silently lost. */
export interface Warning {
  /** Machine-readable kind: `unsupported_field`, `unknown_field`, `approximated`, ... */
  code: string;
  /** The request field or feature concerned, e.g. `top_k` or `tools[2]`. */
  field?: string;
  message: string;
}

export function warn(list: Warning[], code: string, field: string | undefined, message: string): void {
  list.push(field === undefined ? { code, message } : { code, field, message });
}

/**
 * Adds a warning an adapter reported (`ProviderCall.warn`), unless it is an `unsupported_field` warning for a field
 * already listed: a conversation with fifty cache marks yields one warning, not fifty.
 */
export function addWarning(list: Warning[], warning: Warning): void {
  if (warning.code === "unsupported_field" && list.some((w) => w.code === "unsupported_field" && w.field === warning.field)) return;
  list.push(warning);
}
