/**
 * Checking what the model called a tool with against the schema it was shown. A mismatch is thrown as a plain Error:
 * the agent loop hands it to the model as `{error}` (it can correct itself), never a request failure.
 */
import type { TSchema } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";

/** A checker for `schema` (compiled once per tool, at load). */
export function argumentsChecker(schema: TSchema): (args: Record<string, unknown>) => void {
  const check = TypeCompiler.Compile(schema);
  return (args) => {
    const bad = check.Errors(args).First();
    if (!bad) return;
    const at = bad.path ? ` (${bad.path.slice(1).replaceAll("/", ".")})` : "";
    const message = bad.message === "Unexpected property" ? "unknown argument" : bad.message;
    throw new Error(`invalid arguments${at}: ${message}`);
  };
}
