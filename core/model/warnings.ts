/** Warnings (ARCHITECTURE §2): what a translation dropped or approximated, recorded instead of silently lost. */
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
