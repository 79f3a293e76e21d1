/**
 * Text the store keeps must not hold U+0000: Postgres refuses it in text columns (SQLite does not, so the rule is
 * the same on both). Checked where such text enters — a 400 naming the field — rather than failing in the
 * database as a 500. Ids in URLs never hold it either: the edge answers those 404 (core/app.ts).
 */
import { errors } from "../errors.ts";

export function isStorableText(value: string): boolean {
  return !value.includes("\u0000");
}

/** 400 naming `param` when `value` cannot be stored. */
export function checkStorableText(value: string | null | undefined, param: string): void {
  if (typeof value === "string" && !isStorableText(value)) throw errors.invalid(`${param}: must not contain U+0000 (NUL)`, { param });
}
