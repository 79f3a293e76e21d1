/**
 * The server tools a request declared (spec "What the service does" 4), checked before any upstream call: unknown
 * `service:` names, parameters the tool does not define or out of range, a tool its format cannot carry, and the
 * tool's own checks (a time zone, an engine not configured) are 400s naming the field. Each declared tool gets the
 * function name the upstream model sees; a client function tool of the same name keeps its own and ours is prefixed.
 * Anthropic's typed web tools get the gateway's equivalent beside them (./upstream-equivalents.ts).
 */
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import { errors } from "../errors.ts";
import type { CanonicalRequest, Tool } from "../model/request.ts";
import type { RegisteredTool } from "../registry/define.ts";
import type { Registry } from "../registry/registry.ts";
import type { ToolDeclaration } from "../registry/tool.ts";
import { equivalentParameters, gatewayEquivalent, hasGatewayEquivalent } from "./upstream-equivalents.ts";

export const SERVER_TOOL_PREFIX = "service:";

/** One server tool of a request, as the agent loop runs it. */
export interface DeclaredTool {
  module: RegisteredTool;
  /**
   * `parameters.engine: "native"`: the upstream runs it (its own web search), so the adapter gets the server tool
   * itself and reports the calls in its reply; or, for a tool with `nativeRunsOnClient` (bash), the client does, so
   * the model sees a plain function whose calls go back to the client. Either way the loop never runs it.
   */
  native: boolean;
  /** The function name the upstream model calls it by. */
  modelName: string;
  parameters: Record<string, unknown>;
  /** The operator's settings (config `tools.<name>`). */
  config: Record<string, unknown>;
  /**
   * The upstream's own tool the client declared and this one stands in for (Anthropic's `web_search_20250305`,
   * ./upstream-equivalents.ts): an upstream that has it runs it, every other one gets this tool as a function.
   */
  upstreamTool?: ServerTool;
}

export interface DeclaredTools {
  /** By the name the model calls them. */
  byModelName: Map<string, DeclaredTool>;
  list: DeclaredTool[];
}

type ServerTool = Extract<Tool, { kind: "server" }>;
type DeclarationEnv = Pick<ToolDeclaration, "catalog" | "helpers"> & { registry: Registry; settings: Record<string, Record<string, unknown>> };

/** True when the entry is one the gateway runs (other server kinds, e.g. Anthropic's typed tools, go upstream). */
export function isServiceTool(tool: Tool): tool is ServerTool {
  return tool.kind === "server" && tool.type.startsWith(SERVER_TOOL_PREFIX);
}

/**
 * Checks and resolves the request's `service:` tools, and the gateway's stand-ins for Anthropic's typed web tools;
 * undefined when it declares none (the common case).
 */
export function declaredTools(request: CanonicalRequest, env: DeclarationEnv): DeclaredTools | undefined {
  checkDeferred(request);
  if (!request.tools.some((tool) => isServiceTool(tool) || hasGatewayEquivalent(tool))) return undefined;
  const functionNames = new Set(request.tools.flatMap((tool) => (tool.kind === "function" ? [tool.name] : [])));
  const declared: DeclaredTools = { byModelName: new Map(), list: [] };
  const add = (module: RegisteredTool, parameters: Record<string, unknown>, upstreamTool?: ServerTool) => {
    const name = module.id.slice(SERVER_TOOL_PREFIX.length);
    const base = module.modelName ?? name;
    let modelName = functionNames.has(base) ? `service_${base}` : base;
    // The same tool declared twice (two web_search entries with different domains) gets a numbered name.
    for (let n = 2; declared.byModelName.has(modelName); n++) modelName = `${base}_${n}`;
    const entry: DeclaredTool = { module, modelName, parameters, config: env.settings[name] ?? {}, native: parameters.engine === "native" };
    if (upstreamTool) entry.upstreamTool = upstreamTool;
    if (!entry.native) declared.byModelName.set(modelName, entry);
    declared.list.push(entry);
  };
  request.tools.forEach((tool, index) => {
    if (tool.kind !== "server") return;
    const field = `tools[${index}]`;
    if (tool.type.startsWith(SERVER_TOOL_PREFIX)) {
      const module = env.registry.tool(tool.type);
      if (!module) throw errors.invalid(`${field}.type: unknown server tool "${tool.type}"`, { field: `${field}.type` });
      const parameters = tool.parameters ?? {};
      declareOne(module, parameters, request, env, field);
      add(module, parameters);
      return;
    }
    const equivalent = gatewayEquivalent(tool.type);
    if (equivalent !== undefined) {
      const module = env.registry.tool(equivalent);
      const parameters = equivalentParameters(tool, equivalent);
      if (module === undefined || !declarable(module, parameters, request, env, field)) return;
      add(module, parameters, tool);
    }
  });
  return declared.list.length > 0 ? declared : undefined;
}

/**
 * Whether the gateway can stand in for an upstream's typed tool (not when no search engine is configured, say).
 * When it cannot, the typed tool stays as the client sent it: an Anthropic upstream runs it, and every other adapter
 * warns that it was not sent, as before.
 */
function declarable(module: RegisteredTool, parameters: Record<string, unknown>, request: CanonicalRequest, env: DeclarationEnv, field: string): boolean {
  try {
    declareOne(module, parameters, request, env, field);
    return true;
  } catch {
    return false;
  }
}

/** The checks of one declared tool: its format, its parameters, and the tool's own `declare`. */
function declareOne(module: RegisteredTool, parameters: Record<string, unknown>, request: CanonicalRequest, env: DeclarationEnv, field: string): void {
  if (module.formats && !module.formats.includes(request.format)) {
    throw errors.invalid(`${field}.type: ${module.id} is not available on this endpoint (only ${module.formats.join(", ")})`, { field: `${field}.type` });
  }
  checkParameters(module, parameters, `${field}.parameters`);
  const config = env.settings[module.id.slice(SERVER_TOOL_PREFIX.length)] ?? {};
  module.declare?.({ parameters, config, format: request.format, catalog: env.catalog, helpers: env.helpers, field: `${field}.parameters` });
}

/** The server tool that reveals deferred tools. */
export const TOOL_SEARCH = "service:tool_search";

/** The gateway's tool search, or Anthropic's own (`tool_search_tool_regex_20251119`, `…_bm25_…`). */
function isSearchTool(tool: Tool): boolean {
  return tool.kind === "server" && (tool.type === TOOL_SEARCH || tool.type.startsWith("tool_search_tool_"));
}

/** A server entry's own `defer_loading` (Anthropic's typed tools carry it among their fields). */
function isDeferredServerTool(tool: ServerTool): boolean {
  return tool.deferLoading === true || tool.parameters?.defer_loading === true;
}

/**
 * Spec "Tools" `defer_loading`: a search tool cannot itself be deferred, and at least one tool must be loaded up
 * front. On Responses and chat a deferred tool needs `service:tool_search`. On Messages it does not, as on Anthropic's
 * API: a client may run its own tool search (Claude Code's ToolSearch) and name the tools it found with
 * `tool_reference` blocks in its tool results; an Anthropic upstream gets the tools as they were declared, others
 * only the tools named so far (core/provider-kit/deferred-tools.ts).
 */
function checkDeferred(request: CanonicalRequest): void {
  const tools = request.tools;
  tools.forEach((tool, index) => {
    if (tool.kind === "server" && isSearchTool(tool) && isDeferredServerTool(tool)) {
      throw errors.invalid(`tools[${index}].defer_loading: the tool search tool cannot itself be deferred`, { field: `tools[${index}].defer_loading` });
    }
  });
  if (!tools.some((tool) => tool.kind === "function" && tool.deferLoading === true)) return;
  if (request.format !== "messages" && !tools.some(isSearchTool)) {
    throw errors.invalid(`tools: defer_loading requires the ${TOOL_SEARCH} server tool`, { field: "tools" });
  }
  const loaded = tools.some((tool) => (tool.kind === "function" && tool.deferLoading !== true) || (tool.kind === "server" && !isSearchTool(tool)));
  if (!loaded) throw errors.invalid("tools: defer_loading requires at least one tool that is not deferred", { field: "tools" });
}

const checks = new WeakMap<TSchema, TypeCheck<TSchema>>();

function checkParameters(module: RegisteredTool, parameters: Record<string, unknown>, field: string): void {
  if (typeof parameters !== "object" || parameters === null || Array.isArray(parameters)) throw errors.invalid(`${field}: must be an object`, { field });
  const schema = module.parametersSchema;
  if (!schema) return;
  let check = checks.get(schema);
  if (!check) checks.set(schema, (check = TypeCompiler.Compile(schema)));
  const first = check.Errors(parameters).First();
  if (!first) return;
  const at = first.path === "" ? field : `${field}${first.path.replaceAll("/", ".")}`;
  throw errors.invalid(`${at}: ${unknownKeyMessage(first) ?? first.message}`, { field: at });
}

/** TypeBox reports an unknown key as "Unexpected property" at the key's own path; say which key. */
function unknownKeyMessage(error: { message: string; path: string }): string | undefined {
  return error.message === "Unexpected property" ? `unknown parameter "${error.path.split("/").pop()}"` : undefined;
}

/** The function tools the upstream model sees for a turn: the client's (deferred ones once revealed) and ours. */
export function modelTools(request: CanonicalRequest, declared: DeclaredTools, revealed: ReadonlySet<string>): Tool[] {
  const out: Tool[] = [];
  const searches = declared.list.some((entry) => entry.module.id === TOOL_SEARCH);
  for (const tool of request.tools) {
    if (tool.kind === "function") {
      // Deferred tools are withheld until our tool search reveals them (without it, an upstream's native search does).
      if (tool.deferLoading !== true || !searches) out.push(tool);
      else if (revealed.has(tool.name)) out.push(withoutDeferral(tool));
    } else if (!isServiceTool(tool) && !declared.list.some((entry) => entry.upstreamTool === tool)) out.push(tool);
  }
  for (const entry of declared.list) {
    if (entry.native && !entry.module.nativeRunsOnClient) out.push({ kind: "server", type: entry.module.id, parameters: entry.parameters });
    else out.push(functionOf(entry));
  }
  return out;
}

function functionOf(entry: DeclaredTool): Tool {
  const tool: Tool = { kind: "function", name: entry.modelName, description: entry.module.description, parameters: entry.module.argumentsSchema };
  if (entry.upstreamTool) tool.upstreamTool = entry.upstreamTool.parameters ? { type: entry.upstreamTool.type, parameters: entry.upstreamTool.parameters } : { type: entry.upstreamTool.type };
  return tool;
}

function withoutDeferral(tool: Extract<Tool, { kind: "function" }>): Tool {
  const { deferLoading: _deferred, ...rest } = tool;
  return rest;
}
