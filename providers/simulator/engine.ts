/**
 * The simulator's pure core, shared by the in-process adapter (`index.ts`) and the HTTP server (`server.ts`):
 * given a canonical-ish request it decides, deterministically, what the "model" answers and how it is chunked.
 * No clocks, no I/O; the front ends add the timing (latency, chunk delay) and the wire format.
 */
import { DirectiveError, parseDirective, type Directive } from "./directive.ts";
import { fnv1a, hex8 } from "./hash.ts";
import { SIMULATOR_DEFAULTS, type SimulatorOptions } from "./options.ts";
import { argumentsFromSchema } from "./schema-args.ts";
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

/** The request as the engine sees it. */
export interface SimRequest {
  messages: SimMessage[];
  tools: SimTool[];
  toolChoice?: SimToolChoice;
  maxTokens?: number;
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

/** Everything a front end needs to answer one request. */
export interface SimPlan {
  /** Deterministic completion id (`chatcmpl-sim-<hash>`). */
  id: string;
  timing: SimTiming;
  /** Set when the request must fail with this HTTP status instead of answering. */
  failure?: { status: number; message: string };
  reasoning: string;
  text: string;
  toolCall?: { id: string; name: string; arguments: string };
  finishReason: "stop" | "length" | "tool_calls";
  usage: { promptTokens: number; completionTokens: number; reasoningTokens: number };
  pieces: SimPiece[];
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
  const base = { id: `chatcmpl-sim-${hex8(seed)}`, reasoning: "", text: "", pieces: [] as SimPiece[] };
  const empty = { promptTokens, completionTokens: 0, reasoningTokens: 0 };
  let directive: Directive;
  try {
    directive = parseDirective(lastUserText(request.messages));
  } catch (thrown) {
    const message = thrown instanceof DirectiveError ? thrown.message : String(thrown);
    return { ...base, timing: { latencyMs: 0, chunkDelayMs: 0 }, failure: { status: 400, message }, finishReason: "stop", usage: empty };
  }
  const timing: SimTiming = {
    latencyMs: directive.latency ?? options.latency_ms ?? SIMULATOR_DEFAULTS.latency_ms,
    chunkDelayMs: directive.delay ?? options.chunk_delay_ms ?? SIMULATOR_DEFAULTS.chunk_delay_ms,
  };
  if (directive.cut !== undefined) timing.cutAfter = directive.cut;
  const failStatus = directive.status ?? options.fail_status;
  if (failStatus !== undefined) {
    const message = options.fail_message ?? `Simulated upstream failure (HTTP ${failStatus})`;
    return { ...base, timing, failure: { status: failStatus, message }, finishReason: "stop", usage: empty };
  }
  const perChunk = directive.chunk ?? options.tokens_per_chunk ?? SIMULATOR_DEFAULTS.tokens_per_chunk;
  let budget = request.maxTokens ?? Number.POSITIVE_INFINITY;
  const wantedReasoning = directive.reasoning ?? 0;
  const reasoningWords = cycle(seed + 7, Math.min(wantedReasoning, budget));
  budget -= reasoningWords.length;
  const pieces = chunkWords(reasoningWords, perChunk).map((text): SimPiece => ({ kind: "reasoning", text }));
  const reasoning = reasoningWords.join(" ");
  const reasoningCut = reasoningWords.length < wantedReasoning;

  const tool = pickTool(request);
  if (tool !== undefined && !reasoningCut) {
    const args = JSON.stringify(argumentsFromSchema(tool.parameters));
    const toolCall = { id: `call_sim_${hex8(fnv1a(tool.name, seed))}`, name: tool.name, arguments: args };
    pieces.push({ kind: "tool-start", id: toolCall.id, name: tool.name });
    for (let i = 0; i < args.length; i += TOOL_ARGS_PIECE) pieces.push({ kind: "tool-args", text: args.slice(i, i + TOOL_ARGS_PIECE) });
    const completionTokens = reasoningWords.length + countTokens(tool.name) + countTokens(args);
    return { ...base, timing, reasoning, toolCall, pieces, finishReason: "tool_calls", usage: { promptTokens, completionTokens, reasoningTokens: reasoningWords.length } };
  }
  const wanted = replyWords(request.messages, seed, directive.tokens ?? options.output_tokens ?? SIMULATOR_DEFAULTS.output_tokens);
  const replyWordsOut = wanted.slice(0, Math.max(0, Math.min(wanted.length, budget)));
  pieces.push(...chunkWords(replyWordsOut, perChunk).map((text): SimPiece => ({ kind: "text", text })));
  const finishReason = reasoningCut || replyWordsOut.length < wanted.length ? "length" : "stop";
  const usage = { promptTokens, completionTokens: reasoningWords.length + replyWordsOut.length, reasoningTokens: reasoningWords.length };
  return { ...base, timing, reasoning, text: replyWordsOut.join(" "), pieces, finishReason, usage };
}

/** After tool results: "Tool result: <their words>"; otherwise "Simulated reply: <vocabulary words>" of `count` words. */
function replyWords(messages: SimMessage[], seed: number, count: number): string[] {
  const results: string[] = [];
  for (let i = messages.length - 1; i >= 0 && messages[i]?.role === "tool"; i--) results.unshift(...(messages[i]?.texts ?? []));
  if (results.length > 0) return ["Tool", "result:", ...results.flatMap(words)];
  return ["Simulated", "reply:", ...cycle(seed, Math.max(0, count - 2))].slice(0, count);
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

function cycle(seed: number, count: number): string[] {
  const out: string[] = [];
  const offset = seed % VOCABULARY.length;
  for (let i = 0; i < count; i++) out.push(VOCABULARY[(offset + i) % VOCABULARY.length] ?? "alpha");
  return out;
}

/** Groups words into chunk texts whose concatenation is `words.join(" ")`. */
function chunkWords(list: string[], perChunk: number): string[] {
  const out: string[] = [];
  for (let i = 0; i < list.length; i += perChunk) out.push((i === 0 ? "" : " ") + list.slice(i, i + perChunk).join(" "));
  return out;
}
