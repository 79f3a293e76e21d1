/**
 * response-healing: for non-streamed requests that ask for `json_object` / `json_schema` output, a reply whose text
 * is not valid JSON (markdown fences, prose around it, trailing commas, unquoted keys, single quotes, missing
 * brackets) is repaired, checked against the schema when one was given, and returned as clean JSON. What cannot be
 * repaired is returned untouched with a warning. Streamed replies pass through untouched (it says so in
 * `service_metadata.pipeline`): the client has read the text before it could be repaired.
 */
import { Type } from "@sinclair/typebox";
import type { OutputFormat } from "../../core/sdk/index.ts";
import type { CanonicalResponse } from "../../core/sdk/index.ts";
import type { Part, TextPart } from "../../core/sdk/index.ts";
import { definePlugin } from "../../core/sdk/index.ts";
import type { PluginContext } from "../../core/sdk/index.ts";
import { heal } from "./heal.ts";
import { schemaCheck } from "./schema-check.ts";

type JsonFormat = Exclude<OutputFormat, { type: "text" }>;

/** The JSON output format the request asked for, if any. */
function jsonFormatOf(ctx: PluginContext): JsonFormat | undefined {
  const format = ctx.request.output?.format;
  return format && format.type !== "text" ? format : undefined;
}

function healResponse(ctx: PluginContext, format: JsonFormat, response: CanonicalResponse): CanonicalResponse {
  const texts = response.parts.filter((part): part is TextPart => part.type === "text");
  if (texts.length === 0) return response;
  const text = texts.map((part) => part.text).join("");
  // Why the schema was not checked, when the client can act on it (a pattern refused, patterns too costly).
  const skipped = new Set<string>();
  const check = format.type === "json_schema" ? schemaCheck(format.schema, (reason) => skipped.add(reason)) : undefined;
  const result = heal(text, check);
  for (const message of skipped) ctx.request.warnings.push({ code: "response_healing", field: "response_format", message });
  const base = {
    mode: format.type,
    original_length: text.length,
    ...(format.type === "json_schema" && (!check || skipped.size > 0) ? { schema_checked: false } : {}),
    ...(response.finish.reason === "length" ? { truncated_by_max_tokens: true } : {}),
  };
  if (result.kind === "valid") return response;
  if (result.kind === "failed") {
    ctx.request.warnings.push({ code: "response_healing", field: "response_format", message: `The reply was returned untouched: ${result.reason}` });
    ctx.report({ ...base, improved: false, reason: result.reason });
    return response;
  }
  ctx.report({ ...base, improved: true, healed_length: result.json.length, fixes: result.fixes });
  // One text part with the clean JSON where the first text was; everything else (reasoning, tool calls) stays.
  const healed: TextPart = { type: "text", text: result.json };
  const parts: Part[] = [];
  for (const part of response.parts) {
    if (part.type !== "text") parts.push(part);
    else if (part === texts[0]) parts.push(healed);
  }
  return { ...response, parts };
}

export default definePlugin({
  id: "response-healing",
  description: "Repairs malformed JSON replies to json_object / json_schema requests (non-streamed) and checks them against the schema.",
  // No options (peer API): `{id}` or `{id, enabled}` only; anything else is a 400.
  optionsSchema: Type.Object({}, { additionalProperties: false }),
  hooks: {
    post(ctx, response) {
      const format = jsonFormatOf(ctx);
      return format ? healResponse(ctx, format, response) : response;
    },
    stream(ctx, events) {
      const format = jsonFormatOf(ctx);
      if (format) ctx.report({ mode: format.type, improved: false, skipped: "streaming", summary: "streamed replies pass through untouched" });
      return events;
    },
  },
});
