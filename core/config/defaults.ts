/**
 * Settings whose default is written in the file schema (TypeBox `default`), the one place a default lives:
 * `resolveDefaults` fills a section's absent settings with `Value.Default`, nested sections included, and
 * `Resolved<typeof Section>` types the result with those settings present. Runs at start-up only.
 */
import { CloneType, Type, type Static, type TObject, type TOptional, type TProperties, type TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";

declare const HAS_DEFAULT: unique symbol;

/** An optional setting the schema gives a default: it may be left out of a file, and is always there once resolved. */
export type TDefaulted<T extends TSchema> = TOptional<T> & { readonly [HAS_DEFAULT]: true };

/** `schema` as an optional setting whose default is `value` (a section: `{}`, so that its own defaults apply). */
export function Defaulted<T extends TSchema>(schema: T, value: Static<T>): TDefaulted<T> {
  return Type.Optional(CloneType(schema, { default: value })) as TDefaulted<T>;
}

type Flatten<T> = { [K in keyof T]: T[K] } & {};

/** A section's type once resolved: its defaulted settings present (recursively), the others as the file has them. */
export type Resolved<T extends TSchema> = T extends TObject<infer P extends TProperties> ? ResolvedProperties<P> : Static<T>;

type ResolvedProperties<P extends TProperties> = Flatten<
  { [K in keyof P as P[K] extends TDefaulted<TSchema> ? K : never]-?: Resolved<P[K]> } & {
    [K in keyof P as P[K] extends TDefaulted<TSchema> ? never : P[K] extends TOptional<TSchema> ? K : never]?: Static<P[K]>;
  } & { [K in keyof P as P[K] extends TOptional<TSchema> ? never : K]: Static<P[K]> }
>;

/** `section` (absent: `{}`) with the schema's defaults filled in; a copy, so the file as read stays as it was. */
export function resolveDefaults<T extends TObject>(schema: T, section: Static<T> | undefined): Resolved<T> {
  return Value.Default(schema, Value.Clone(section ?? {})) as Resolved<T>;
}

/** Freezes a resolved default and everything in it, for the DEFAULT_* values hand-built configs share. */
export function deepFreeze<T>(value: T): Readonly<T> {
  if (typeof value === "object" && value !== null) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}
