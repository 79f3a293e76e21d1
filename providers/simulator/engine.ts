/**
 * The simulator's pure core, shared by the in-process adapter (`index.ts`) and the HTTP server (`server.ts`):
 * given a canonical-ish request it decides, deterministically, what the "model" answers and how it is chunked.
 * No clocks, no I/O; the front ends add the timing (latency, chunk delay) and the wire format.
 */
import { DirectiveError, parseDirective, type Directive } from "./directive.ts";
import { fnv1a, hex8 } from "./hash.ts";
import { SIMULATOR_DEFAULTS, type SimulatorOptions } from "./options.ts";
import { argumentsFromSchema, valueFromSchema, type Json } from "./schema-args.ts";
import { countPromptTokens, countTokens, words } from "./tokenizer.ts";

/** A message reduced to its role and the strings it carries (see tokenizer.ts for what counts). */
export interface SimMessage {
  role: "system" | "user" | "assistant" | "tool";
  texts: string[];
}

/** A tool the model may call. */
export interface SimTool {
  name: string;
  parameters?: Record<string, unknown>;
}

/** Tool choice: `{name}` forces that tool. */
export type SimToolChoice = "auto" | "none" | "required" | { name: string };

/** A structured reply asked for: JSON matching a schema (`json_schema`), or any JSON object (`json_object`). */
export type SimOutput = { type: "json_schema"; schema: Record<string, unknown> } | { type: "json_object" };

/** The request as the engine sees it. */
export interface SimRequest {
  messages: SimMessage[];
  tools: SimTool[];
  toolChoice?: SimToolChoice;
  maxTokens?: number;
  output?: SimOutput;
}

/** One stream chunk's worth of output. */
export type SimPiece =
  | { kind: "reasoning"; text: string }
  | { kind: "text"; text: string }
  | { kind: "tool-start"; id: string; name: string }
  | { kind: "tool-args"; text: string };

/** Timing the front ends apply. */
export interface SimTiming {
  latencyMs: number;
  chunkDelayMs: number;
  /** End the stream after this many pieces, without finish (fault injection). */
  cutAfter?: number;
}

/**
 * Everything a front end needs to answer one request. The output is not built up front: `piece(i)` makes each
 * chunk when it is read, from the plan's layout, so a long reply to a client that never reads costs nothing while
 * it waits. `pieces`, `text` and
 * `reasoning` build the whole thing, for the non-streamed answer and for tests.
 */
export class SimPlan {
  /** Set when the request must fail with this HTTP status instead of answering. */
  failure?: { status: number; message: string };
  toolCall?: { id: string; name: string; arguments: string };

  constructor(
    /** Deterministic completion id (`chatcmpl-sim-<hash>`). */
    readonly id: string,
    readonly timing: SimTiming,
    readonly finishReason: "stop" | "length" | "tool_calls",
    readonly usage: { promptTokens: number; completionTokens: number; reasoningTokens: number },
    readonly layout: SimLayout,
  ) {}

  /** Stream chunks: reasoning first, then the tool call or the reply. */
  get pieceCount(): number {
    const { reasoning, reply, perChunk, toolArgs, replyJson } = this.layout;
    const head = Math.ceil(reasoning.count / perChunk);
    if (this.toolCall) return head + 1 + Math.ceil(toolArgs.length / TOOL_ARGS_PIECE);
    if (replyJson !== undefined) return head + Math.ceil(replyJson.length / TOOL_ARGS_PIECE);
    return head + Math.ceil(reply.count / perChunk);
  }

  piece(index: number): SimPiece | undefined {
    const { reasoning, reply, perChunk, toolArgs } = this.layout;
    const head = Math.ceil(reasoning.count / perChunk);
    if (index < 0) return undefined;
    if (index < head) return { kind: "reasoning", text: chunkText(reasoning, index, perChunk) };
    const rest = index - head;
    if (this.toolCall) {
      if (rest === 0) return { kind: "tool-start", id: this.toolCall.id, name: this.toolCall.name };
      const at = (rest - 1) * TOOL_ARGS_PIECE;
      return at < toolArgs.length ? { kind: "tool-args", text: toolArgs.slice(at, at + TOOL_ARGS_PIECE) } : undefined;
    }
    const json = this.layout.replyJson;
    if (json !== undefined) {
      const at = rest * TOOL_ARGS_PIECE;
      return at < json.length ? { kind: "text", text: json.slice(at, at + TOOL_ARGS_PIECE) } : undefined;
    }
    return rest * perChunk < reply.count ? { kind: "text", text: chunkText(reply, rest, perChunk) } : undefined;
  }

  get pieces(): SimPiece[] {
    const out: SimPiece[] = [];
    for (let i = 0, n = this.pieceCount; i < n; i++) out.push(this.piece(i)!);
    return out;
  }

  /** The reply text (empty for a tool call). */
  get text(): string {
    return this.toolCall ? "" : (this.layout.replyJson ?? wordsOf(this.layout.reply).join(" "));
  }

  get reasoning(): string {
    return wordsOf(this.layout.reasoning).join(" ");
  }
}

/** A run of words: `fixed` first, then words of the vocabulary from `offset` on, `count` in all. */
export interface WordRun {
  fixed: readonly string[];
  offset: number;
  count: number;
}

/** What the plan's output is made of. */
export interface SimLayout {
  reasoning: WordRun;
  reply: WordRun;
  perChunk: number;
  /** The tool call's arguments (empty without one). */
  toolArgs: string;
  /** A structured reply's JSON text, which replaces the words of `reply` (sent in pieces like tool arguments). */
  replyJson?: string;
}

function wordAt(run: WordRun, index: number): string {
  return index < run.fixed.length ? run.fixed[index]! : (VOCABULARY[(run.offset + index - run.fixed.length) % VOCABULARY.length] ?? "alpha");
}

function wordsOf(run: WordRun): string[] {
  const out: string[] = [];
  for (let i = 0; i < run.count; i++) out.push(wordAt(run, i));
  return out;
}

/** Chunk `index`: its words, after a space unless it is the first, so the chunks concatenate to the text. */
function chunkText(run: WordRun, index: number, perChunk: number): string {
  const from = index * perChunk;
  const to = Math.min(run.count, from + perChunk);
  let text = index === 0 ? "" : " ";
  for (let i = from; i < to; i++) text += (i === from ? "" : " ") + wordAt(run, i);
  return text;
}

/** The fixed vocabulary replies are drawn from, cycling from an offset seeded by the prompt's hash. */
export const VOCABULARY = [
  "alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima",
  "mike", "november", "oscar", "papa", "quebec", "romeo", "sierra", "tango", "uniform", "victor", "whiskey", "xray",
  "yankee", "zulu",
] as const;

const TOOL_ARGS_PIECE = 16;

/** Decides the reply to `request` under `options` (directive in the last user message wins over options). */
export function simulate(request: SimRequest, options: SimulatorOptions = {}): SimPlan {
  const prompt = request.messages.map((m) => m.texts.join("\n")).join("\n");
  const seed = fnv1a(prompt);
  const promptTokens = countPromptTokens(request.messages);
  const id = `chatcmpl-sim-${hex8(seed)}`;
  const empty = { promptTokens, completionTokens: 0, reasoningTokens: 0 };
  const nothing: SimLayout = { reasoning: NO_WORDS, reply: NO_WORDS, perChunk: 1, toolArgs: "" };
  let directive: Directive;
  try {
    directive = parseDirective(lastUserText(request.messages));
  } catch (thrown) {
    const message = thrown instanceof DirectiveError ? thrown.message : String(thrown);
    return failed(new SimPlan(id, { latencyMs: 0, chunkDelayMs: 0 }, "stop", empty, nothing), { status: 400, message });
  }
  const timing: SimTiming = {
    latencyMs: directive.latency ?? options.latency_ms ?? SIMULATOR_DEFAULTS.latency_ms,
    chunkDelayMs: directive.delay ?? options.chunk_delay_ms ?? SIMULATOR_DEFAULTS.chunk_delay_ms,
  };
  if (directive.cut !== undefined) timing.cutAfter = directive.cut;
  const failStatus = directive.status ?? options.fail_status;
  if (failStatus !== undefined) {
    const message = options.fail_message ?? `Simulated upstream failure (HTTP ${failStatus})`;
    return failed(new SimPlan(id, timing, "stop", empty, nothing), { status: failStatus, message });
  }
  const perChunk = directive.chunk ?? options.tokens_per_chunk ?? SIMULATOR_DEFAULTS.tokens_per_chunk;
  let budget = request.maxTokens ?? Number.POSITIVE_INFINITY;
  const wantedReasoning = directive.reasoning ?? 0;
  const reasoning: WordRun = { fixed: [], offset: (seed + 7) % VOCABULARY.length, count: Math.min(wantedReasoning, budget) };
  budget -= reasoning.count;
  const reasoningCut = reasoning.count < wantedReasoning;

  const tool = pickTool(request);
  if (tool !== undefined && !reasoningCut) {
    const args = JSON.stringify(argumentsFromSchema(tool.parameters));
    const toolCall = { id: `call_sim_${hex8(fnv1a(tool.name, seed))}`, name: tool.name, arguments: args };
    const completionTokens = reasoning.count + countTokens(tool.name) + countTokens(args);
    const plan = new SimPlan(id, timing, "tool_calls", { promptTokens, completionTokens, reasoningTokens: reasoning.count }, { reasoning, reply: NO_WORDS, perChunk, toolArgs: args });
    plan.toolCall = toolCall;
    return plan;
  }
  if (request.output !== undefined) {
    // A structured reply is the whole JSON or, when reasoning used up the budget, nothing: never a cut document.
    const replyJson = reasoningCut ? "" : JSON.stringify(structuredReply(request.output));
    const usage = { promptTokens, completionTokens: reasoning.count + countTokens(replyJson), reasoningTokens: reasoning.count };
    return new SimPlan(id, timing, reasoningCut ? "length" : "stop", usage, { reasoning, reply: NO_WORDS, perChunk, toolArgs: "", replyJson });
  }
  const wanted = replyWords(request.messages, seed, directive.tokens ?? options.output_tokens ?? SIMULATOR_DEFAULTS.output_tokens);
  const reply: WordRun = { ...wanted, count: Math.max(0, Math.min(wanted.count, budget)) };
  const finishReason = reasoningCut || reply.count < wanted.count ? "length" : "stop";
  const usage = { promptTokens, completionTokens: reasoning.count + reply.count, reasoningTokens: reasoning.count };
  return new SimPlan(id, timing, finishReason, usage, { reasoning, reply, perChunk, toolArgs: "" });
}

/** JSON built from the schema, as tool arguments are; `json_object` gets a small object of its own. */
function structuredReply(output: SimOutput): Json {
  return output.type === "json_schema" ? valueFromSchema(output.schema) : { reply: "simulated" };
}

const NO_WORDS: WordRun = Object.freeze({ fixed: [], offset: 0, count: 0 });

function failed(plan: SimPlan, failure: { status: number; message: string }): SimPlan {
  plan.failure = failure;
  return plan;
}

/** After tool results: "Tool result: <their words>"; otherwise "Simulated reply: <vocabulary words>" of `count` words. */
function replyWords(messages: SimMessage[], seed: number, count: number): WordRun {
  let first = messages.length;
  while (first > 0 && messages[first - 1]?.role === "tool") first--;
  if (messages.slice(first).some((m) => m.texts.length > 0)) {
    // Pushed word by word, never spread: a large tool result must not overflow the stack.
    const fixed = ["Tool", "result:"];
    for (let i = first; i < messages.length; i++) for (const text of messages[i]!.texts) for (const word of words(text)) fixed.push(word);
    return { fixed, offset: 0, count: fixed.length };
  }
  return { fixed: ["Simulated", "reply:"], offset: seed % VOCABULARY.length, count };
}

/** Calls a tool when tools are offered, the choice is not `none` and the last message is not a tool result. */
function pickTool(request: SimRequest): SimTool | undefined {
  const choice = request.toolChoice ?? "auto";
  if (request.tools.length === 0 || choice === "none") return undefined;
  if (request.messages[request.messages.length - 1]?.role === "tool") return undefined;
  if (typeof choice === "object") return request.tools.find((t) => t.name === choice.name) ?? request.tools[0];
  return request.tools[0];
}

function lastUserText(messages: SimMessage[]): string {
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (message?.role === "user") return message.texts.join("\n");
  }
  return "";
}
