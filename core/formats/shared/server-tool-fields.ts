/**
 * How each server tool's call and result are presented to a client (Responses `service:*` output
 * items): the tool-specific fields beside the common `type, id, call_id, status, arguments`. One place for every
 * format, so a tool's presentation is decided once and a new tool only adds an entry here.
 */
import type { ServerToolPart } from "../../model/parts.ts";
import { CONTAINER_TOOL_PRESENTERS } from "./container-tool-fields.ts";

type Fields = Record<string, unknown>;

/** Keys of the common item envelope; a result never overwrites them (they go under `result` instead). */
const ENVELOPE_KEYS: ReadonlySet<string> = new Set(["type", "id", "status", "call_id", "arguments"]);

/** A plain JSON object (not an array, not null). */
export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The call's arguments as an object; `{}` when they are not a JSON object (the model's text is kept elsewhere). */
export function argumentsObject(args: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(args);
    return isPlainObject(value) ? value : {};
  } catch {
    return {};
  }
}

/** The tool's short name: `service:web_search` → `web_search`; a name without the prefix stays as is. */
export function toolShortName(name: string): string {
  return name.startsWith("service:") ? name.slice("service:".length) : name;
}

/** Why the call failed: the part's own error, else an `error` string the tool put in its result (web_fetch does). */
export function serverToolError(part: ServerToolPart): string | undefined {
  if (part.error !== undefined) return part.error;
  return isPlainObject(part.result) && typeof part.result.error === "string" ? part.result.error : undefined;
}

/** The first string among `values`. */
function firstString(...values: unknown[]): string | undefined {
  return values.find((value): value is string => typeof value === "string");
}

/** Copies the keys of `from` that hold a value, renamed as `names` says (`{to: from-key candidates}`). */
function pick(from: Fields, names: Record<string, readonly string[]>): Fields {
  const out: Fields = {};
  for (const [to, candidates] of Object.entries(names)) {
    for (const key of candidates) {
      if (from[key] !== undefined) {
        out[to] = from[key];
        break;
      }
    }
  }
  return out;
}

/** `web_search`: the query and the result URLs as sources (the model saw `{results: [{url, title, …}]}`). */
function webSearchFields(args: Fields, result: Fields): Fields {
  const results = Array.isArray(result.results) ? result.results : [];
  const sources = results.flatMap((entry) => (isPlainObject(entry) && typeof entry.url === "string" ? [{ type: "url", url: entry.url }] : []));
  return { action: { type: "search", query: firstString(args.query, result.query) ?? "", sources } };
}

/** `web_fetch`: what the fetch result has (`{url, title, content, status_code?}`); a failed fetch still names its url. */
function webFetchFields(args: Fields, result: Fields): Fields {
  const fields = pick(result, { url: ["url"], title: ["title"], content: ["content"], httpStatus: ["status_code", "httpStatus", "http_status"] });
  if (fields.url === undefined && typeof args.url === "string") fields.url = args.url;
  return fields;
}

/** `image_generation`: the image (URL or base64) and the prompts; the prompt is the model's when the result omits it. */
function imageFields(args: Fields, result: Fields): Fields {
  const fields = pick(result, { imageUrl: ["imageUrl", "image_url"], imageB64: ["imageB64", "image_b64"], prompt: ["prompt"], revisedPrompt: ["revisedPrompt", "revised_prompt"] });
  if (fields.prompt === undefined && typeof args.prompt === "string") fields.prompt = args.prompt;
  return fields;
}

/** Search tools show what was searched for (`tool_search` takes a regex `pattern` as its query). */
function queryFields(args: Fields, result: Fields): Fields {
  const query = firstString(args.query, args.pattern, result.query);
  return query === undefined ? {} : { query };
}

/**
 * Any other tool (third-party ones …): a result object is spread (its keys are the item's fields); keys that
 * would overwrite the envelope go under `result`. A non-object result, or one that has both envelope keys and its
 * own `result` key, is shown whole as `result`.
 */
function genericFields(value: unknown): Fields {
  if (value === undefined) return {};
  if (!isPlainObject(value)) return { result: value };
  const spread: Fields = {};
  const reserved: Fields = {};
  for (const [key, inner] of Object.entries(value)) (ENVELOPE_KEYS.has(key) ? reserved : spread)[key] = inner;
  if (Object.keys(reserved).length === 0) return spread;
  if ("result" in spread) return { result: value };
  return { ...spread, result: reserved };
}

const PRESENTERS: Record<string, (args: Fields, result: Fields) => Fields> = {
  "service:web_search": webSearchFields,
  "service:web_fetch": webFetchFields,
  "service:datetime": (_args, result) => pick(result, { datetime: ["datetime"], timezone: ["timezone"] }),
  "service:image_generation": imageFields,
  "service:experimental__search_models": queryFields,
  "service:tool_search": queryFields,
  ...CONTAINER_TOOL_PRESENTERS,
};

/** The tool-specific fields of `part`, plus `error` when it failed. */
export function serverToolFields(part: ServerToolPart): Fields {
  const present = PRESENTERS[part.name];
  const fields = present ? present(argumentsObject(part.arguments), isPlainObject(part.result) ? part.result : {}) : genericFields(part.result);
  const error = serverToolError(part);
  if (error !== undefined) fields.error = error;
  return fields;
}
