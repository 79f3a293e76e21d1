/** Preset slugs (spec endpoint 3, path parameter `slug`: at least 1 character, URL-safe). */
import { errors } from "../errors.ts";

/**
 * URL-safe = RFC 3986 "unreserved" characters, so a slug never needs escaping in a path or in `@preset/<slug>`.
 * A slug of dots only is refused too: clients normalise `.` and `..` path segments away.
 */
const SLUG = /^[A-Za-z0-9._~-]{1,128}$/;

/** True for a valid slug. */
export function isSlug(value: string): boolean {
  return SLUG.test(value) && !/^\.+$/.test(value);
}

/** Returns the slug or throws 400 naming the rule. */
export function checkSlug(value: string): string {
  if (!isSlug(value)) {
    throw errors.invalid(
      `Invalid preset slug "${value}": use 1 to 128 URL-safe characters (letters, digits, "-", "_", ".", "~")`,
      { param: "slug" },
    );
  }
  return value;
}
