/**
 * Tools and tool choice in presets: stored in chat shape, translated to the client's format, and
 * merged by identity — a function by name, `service:advisor`/`service:subagent` by type and `parameters.name`,
 * other server tools by type. Preset order is kept; a request tool replaces the preset tool of the same identity in
 * place; request-only tools are appended.
 */
import type { InboundFormat } from "../model/request.ts";
import { isRecord, type Json } from "./json.ts";

/** A tool the function family shares: name, description, JSON-schema parameters and flags. */
interface FunctionSpec {
  name: string;
  rest: Json;
}

/** Function tools as chat spells them; anything else (server and vendor-typed tools) is kept verbatim. */
function functionOf(format: InboundFormat, tool: Json): FunctionSpec | undefined {
  if (format === "chat") {
    if (tool.type !== "function" || !isRecord(tool.function) || typeof tool.function.name !== "string") return undefined;
    const { name, ...rest } = tool.function;
    return { name, rest: withCache(rest, tool.cache_control) };
  }
  if (format === "responses") {
    if (tool.type !== "function" || typeof tool.name !== "string") return undefined;
    const { type: _type, name, ...rest } = tool;
    return { name, rest };
  }
  // Messages: a client tool has no type (or `custom`) and an `input_schema`.
  if ((tool.type !== undefined && tool.type !== null && tool.type !== "custom") || typeof tool.name !== "string") return undefined;
  const { type: _type, name, input_schema, ...rest } = tool;
  return { name, rest: input_schema === undefined ? rest : { ...rest, parameters: input_schema } };
}

function withCache(rest: Json, cache: unknown): Json {
  return cache === undefined ? rest : { ...rest, cache_control: cache };
}

/** One function in a format's own shape. */
function functionIn(format: InboundFormat, spec: FunctionSpec): Json {
  if (format === "chat") {
    const { cache_control, ...fn } = spec.rest;
    return cache_control === undefined ? { type: "function", function: { name: spec.name, ...fn } } : { type: "function", function: { name: spec.name, ...fn }, cache_control };
  }
  if (format === "responses") return { type: "function", name: spec.name, ...spec.rest };
  const { parameters, ...rest } = spec.rest;
  return { name: spec.name, input_schema: parameters ?? { type: "object", properties: {} }, ...rest };
}

/** Whether a non-function tool can be written in a format: chat only has `service:*` server tools. */
function expressible(format: InboundFormat, tool: Json): boolean {
  if (typeof tool.type !== "string") return false;
  return format !== "chat" || tool.type.startsWith("service:");
}

/**
 * Tools of a body in format `from`, rewritten for format `to`. Tools `to` cannot express are left out — except
 * when storing (`keepAll`): a config keeps a vendor-typed tool so that formats which can say it still get it.
 */
export function translateTools(from: InboundFormat, to: InboundFormat, tools: unknown, keepAll = false): Json[] {
  if (!Array.isArray(tools)) return [];
  const out: Json[] = [];
  for (const tool of tools) {
    if (!isRecord(tool)) continue;
    const spec = functionOf(from, tool);
    if (spec) out.push(functionIn(to, spec));
    else if (typeof tool.type === "string" && (keepAll || expressible(to, tool))) out.push(tool);
  }
  return out;
}

/** The identity a tool merges by. */
export function toolIdentity(format: InboundFormat, tool: Json): string {
  const spec = functionOf(format, tool);
  if (spec) return `function:${spec.name}`;
  const type = typeof tool.type === "string" ? tool.type : "";
  if (type === "service:advisor" || type === "service:subagent") {
    const name = isRecord(tool.parameters) ? tool.parameters.name : undefined;
    return `${type}:${typeof name === "string" ? name : ""}`;
  }
  return type;
}

/** Preset tools then request tools, both in `format`'s shape, merged by identity. */
export function mergeTools(format: InboundFormat, preset: readonly Json[], request: readonly unknown[]): unknown[] {
  const merged: unknown[] = [...preset];
  const index = new Map(preset.map((tool, i) => [toolIdentity(format, tool), i]));
  for (const tool of request) {
    const at = isRecord(tool) ? index.get(toolIdentity(format, tool)) : undefined;
    if (at === undefined) merged.push(tool);
    else merged[at] = tool;
  }
  return merged;
}

/** A tool choice of format `from` in chat's spelling (undefined when chat cannot say it). */
export function toolChoiceToChat(from: InboundFormat, choice: unknown): unknown {
  if (from === "chat") return choice;
  if (typeof choice === "string") return from === "responses" ? choice : undefined;
  if (!isRecord(choice)) return undefined;
  if (from === "responses") return choice.type === "function" && typeof choice.name === "string" ? { type: "function", function: { name: choice.name } } : undefined;
  const byType: Record<string, unknown> = { auto: "auto", any: "required", none: "none" };
  if (choice.type === "tool" && typeof choice.name === "string") return { type: "function", function: { name: choice.name } };
  return typeof choice.type === "string" ? byType[choice.type] : undefined;
}

/** A chat tool choice in format `to`'s spelling (undefined when `to` cannot say it). */
export function toolChoiceFromChat(to: InboundFormat, choice: unknown): unknown {
  if (to === "chat") return choice;
  const name = isRecord(choice) && isRecord(choice.function) && typeof choice.function.name === "string" ? choice.function.name : undefined;
  if (to === "responses") return name !== undefined ? { type: "function", name } : typeof choice === "string" ? choice : undefined;
  if (name !== undefined) return { type: "tool", name };
  const byMode: Record<string, string> = { auto: "auto", required: "any", none: "none" };
  const type = typeof choice === "string" ? byMode[choice] : undefined;
  return type === undefined ? undefined : { type };
}
