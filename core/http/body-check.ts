/**
 * Validation of a request body against its TypeBox schema, done by us rather than by Elysia.
 * Elysia's validation error builds its message by pretty-printing the whole body (`JSON.stringify(…, null, 2)`,
 * indentation growing with depth), deriving an example value from the schema and listing every error: seconds of
 * CPU and hundreds of MB for a large body that nests, for a message we throw away. Here a failure costs the first
 * error only, and the 400 names its field as before.
 */
import type { Static, TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { invalidParameters } from "./edge-errors.ts";

/** A checker for `schema`, compiled once (call it when building a route, not per request). */
export function bodyChecker<T extends TSchema>(schema: T): (body: unknown) => Static<T> {
  const check = TypeCompiler.Compile(schema);
  return (body) => {
    if (check.Check(body)) return body;
    throw invalidParameters(check.Errors(body).First());
  };
}

/**
 * The OpenAPI `requestBody` of a route whose body is checked by `bodyChecker` (the docs are still generated from
 * the schema: the route only stops handing it to Elysia's validator).
 */
export function jsonRequestBody(schema: TSchema): { required: true; content: { "application/json": { schema: TSchema } } } {
  return { required: true, content: { "application/json": { schema } } };
}
