/**
 * The server tools a request declared (spec "What the service does" 4), checked before any upstream call: unknown
 * `service:` names, parameters the tool does not define or out of range, a tool its format cannot carry, and the
 * tool's own checks (a time zone, an engine not configured) are 400s naming the field. Each declared tool gets the
 * function name the upstream model sees; a client function tool of the same name keeps its own and ours is prefixed.
 */
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import { errors } from "../errors.ts";
import type { CanonicalRequest, Tool } from "../model/request.ts";
import type { RegisteredTool } from "../registry/define.ts";
import type { Registry } from "../registry/registry.ts";
import type { ToolDeclaration } from "../registry/tool.ts";

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
}

export interface DeclaredTools {
  /** By the name the model calls them. */
  byModelName: Map<string, DeclaredTool>;
  list: DeclaredTool[];
}

type DeclarationEnv = Pick<ToolDeclaration, "catalog" | "helpers"> & { registry: Registry; settings: Record<string, Record<string, unknown>> };

/** True when the entry is one the gateway runs (other server kinds, e.g. Anthropic's typed tools, go upstream). */
export function isServiceTool(tool: Tool): tool is Extract<Tool, { kind: "server" }> {
  return tool.kind === "server" && tool.type.startsWith(SERVER_TOOL_PREFIX);
}

/** Checks and resolves the request's `service:` tools; undefined when it declares none (the common case). */
export function declaredTools(request: CanonicalRequest, env: DeclarationEnv): DeclaredTools | undefined {
  checkDeferred(request.tools);
  if (!request.tools.some(isServiceTool)) return undefined;
  const functionNames = new Set(request.tools.flatMap((tool) => (tool.kind === "function" ? [tool.name] : [])));
  const declared: DeclaredTools = { byModelName: new Map(), list: [] };
  request.tools.forEach((tool, index) => {
    if (!isServiceTool(tool)) return;
    const field = `tools[${index}]`;
    const module = env.registry.tool(tool.type);
    if (!module) throw errors.invalid(`${field}.type: unknown server tool "${tool.type}"`, { field: `${field}.type` });
    if (module.formats && !module.formats.includes(request.format)) {
      throw errors.invalid(`${field}.type: ${tool.type} is not available on this endpoint (only ${module.formats.join(", ")})`, { field: `${field}.type` });
    }
    const parameters = tool.parameters ?? {};
    checkParameters(module, parameters, `${field}.parameters`);
    const name = tool.type.slice(SERVER_TOOL_PREFIX.length);
    const config = env.settings[name] ?? {};
    module.declare?.({ parameters, config, format: request.format, catalog: env.catalog, helpers: env.helpers, field: `${field}.parameters` });
    const base = module.modelName ?? name;
    let modelName = functionNames.has(base) ? `service_${base}` : base;
    // The same tool declared twice (two web_search entries with different domains) gets a numbered name.
    for (let n = 2; declared.byModelName.has(modelName); n++) modelName = `${base}_${n}`;
    const entry: DeclaredTool = { module, modelName, parameters, config, native: parameters.engine === "native" };
    if (!entry.native) declared.byModelName.set(modelName, entry);
    declared.list.push(entry);
  });
  return declared;
}

/** The server tool that reveals deferred tools (reference b4). */
export const TOOL_SEARCH = "service:tool_search";

/**
 * Spec "Tools" `defer_loading`: a deferred tool needs a tool search (ours, or an upstream's native one on Messages)
 * and at least one tool loaded up front; the search tool itself cannot be deferred.
 */
function checkDeferred(tools: readonly Tool[]): void {
  if (!tools.some((tool) => tool.kind === "function" && tool.deferLoading === true)) return;
  const isSearch = (tool: Tool) => tool.kind === "server" && (tool.type === TOOL_SEARCH || tool.type.startsWith("tool_search_tool_"));
  if (!tools.some(isSearch)) throw errors.invalid(`tools: defer_loading requires the ${TOOL_SEARCH} server tool`, { field: "tools" });
  const loaded = tools.some((tool) => (tool.kind === "function" && tool.deferLoading !== true) || (tool.kind === "server" && !isSearch(tool)));
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
    } else if (!isServiceTool(tool)) out.push(tool);
  }
  for (const entry of declared.list) {
    if (entry.native && !entry.module.nativeRunsOnClient) out.push({ kind: "server", type: entry.module.id, parameters: entry.parameters });
    else out.push({ kind: "function", name: entry.modelName, description: entry.module.description, parameters: entry.module.argumentsSchema });
  }
  return out;
}

function withoutDeferral(tool: Extract<Tool, { kind: "function" }>): Tool {
  const { deferLoading: _deferred, ...rest } = tool;
  return rest;
}
