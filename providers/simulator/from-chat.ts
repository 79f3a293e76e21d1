/** Chat-completions request body → simulator request (the HTTP simulator's decoder). */
import type { SimMessage, SimOutput, SimRequest, SimTool, SimToolChoice } from "./engine.ts";

const ROLES = new Set(["system", "developer", "user", "assistant", "tool"]);

/** Reads the body leniently (a test upstream, not a validator); returns an error sentence when unusable. */
export function simRequestFromChat(body: unknown): SimRequest | string {
  if (typeof body !== "object" || body === null || Array.isArray(body)) return "request body must be a JSON object";
  const b = body as Record<string, unknown>;
  if (!Array.isArray(b.messages) || b.messages.length === 0) return "messages must be a non-empty array";
  const messages: SimMessage[] = [];
  for (const raw of b.messages) {
    const m = record(raw);
    const role = typeof m?.role === "string" && ROLES.has(m.role) ? m.role : undefined;
    if (m === undefined || role === undefined) return "each message needs a role of system, developer, user, assistant or tool";
    const texts = contentTexts(m.content);
    if (role === "assistant") {
      for (const call of Array.isArray(m.tool_calls) ? m.tool_calls : []) {
        const fn = record(record(call)?.function);
        texts.push(str(fn?.name), str(fn?.arguments));
      }
      texts.push(str(m.reasoning), str(m.refusal));
    }
    messages.push({ role: role === "developer" ? "system" : (role as SimMessage["role"]), texts });
  }
  const out: SimRequest = { messages, tools: tools(b.tools) };
  const choice = toolChoice(b.tool_choice);
  if (choice !== undefined) out.toolChoice = choice;
  const max = b.max_completion_tokens ?? b.max_tokens;
  if (typeof max === "number" && Number.isInteger(max) && max >= 0) out.maxTokens = max;
  const output = responseFormat(b.response_format);
  if (output !== undefined) out.output = output;
  return out;
}

/** `response_format`: json_schema (its `json_schema.schema`) or json_object; text or anything else is plain text. */
function responseFormat(value: unknown): SimOutput | undefined {
  const format = record(value);
  if (format?.type === "json_object") return { type: "json_object" };
  const schema = record(record(format?.json_schema)?.schema);
  return format?.type === "json_schema" && schema !== undefined ? { type: "json_schema", schema } : undefined;
}

function contentTexts(content: unknown): string[] {
  if (typeof content === "string") return [content];
  if (!Array.isArray(content)) return [];
  return content.flatMap((part) => {
    const p = record(part);
    return p?.type === "text" && typeof p.text === "string" ? [p.text] : [];
  });
}

function tools(value: unknown): SimTool[] {
  if (!Array.isArray(value)) return [];
  return value.flatMap((raw): SimTool[] => {
    const fn = record(record(raw)?.function);
    if (typeof fn?.name !== "string") return [];
    const parameters = record(fn.parameters);
    return [parameters === undefined ? { name: fn.name } : { name: fn.name, parameters }];
  });
}

function toolChoice(value: unknown): SimToolChoice | undefined {
  if (value === "auto" || value === "none" || value === "required") return value;
  const name = record(record(value)?.function)?.name;
  return typeof name === "string" ? { name } : undefined;
}

function record(value: unknown): Record<string, unknown> | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
}

function str(value: unknown): string {
  return typeof value === "string" ? value : "";
}
