/**
 * `{{variable}}` substitution for prompt templates (Responses `prompt.variables`). One pass, so a
 * value that itself contains `{{…}}` is inserted as it is and never expanded again.
 */
import { errors } from "../errors.ts";
import { isRecord } from "./json.ts";

/** `{{name}}` or `{{ name }}`; names are identifier-like (letters, digits, `_`, `-`, `.`). */
const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_.-]+)\s*\}\}/g;

/**
 * The text a variable's value stands for: strings as they are, numbers and booleans as written, and OpenAI's
 * `{type: "input_text", text}` part. Images and files cannot go into text (a 400 naming the variable).
 */
export function variableText(name: string, value: unknown): string {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean") return String(value);
  if (isRecord(value) && value.type === "input_text" && typeof value.text === "string") return value.text;
  const kind = isRecord(value) && typeof value.type === "string" ? value.type : value === null ? "null" : Array.isArray(value) ? "array" : typeof value;
  const param = `prompt.variables.${name}`;
  throw errors.invalid(`${param}: only text can fill a prompt template (a string, number, boolean or input_text part), not ${kind}`, { param });
}

/** `template` with every placeholder replaced; a placeholder without a variable is a 400 naming the first such one. */
export function renderTemplate(template: string, variables: Record<string, unknown>): string {
  const missing = [...template.matchAll(PLACEHOLDER)].map((m) => m[1] as string).find((name) => !Object.hasOwn(variables, name));
  if (missing !== undefined) {
    const param = `prompt.variables.${missing}`;
    throw errors.invalid(`${param}: the prompt template uses the variable "${missing}", which the request does not give`, { param });
  }
  return template.replace(PLACEHOLDER, (_, name: string) => variableText(name, variables[name]));
}
