/**
 * A loopback fake upstream model that calls tools on command, for agent-loop tests: it speaks OpenAI chat
 * completions (JSON and SSE, as the `openai` adapter calls it), records every body it receives, and answers turn `n`
 * with what the test's script says: text, or tool calls with given arguments. Usage is fixed per reply
 * (`PROMPT_TOKENS` in, `COMPLETION_TOKENS` out), so costs can be checked exactly.
 */

export const PROMPT_TOKENS = 100;
export const COMPLETION_TOKENS = 20;

export type ScriptedReply =
  /** `reasoning`: thinking text sent before the answer (`reasoning` on the message or in stream deltas). */
  | { text: string; finish?: string; reasoning?: string }
  | { calls: Array<{ name: string; args?: Record<string, unknown>; id?: string }>; text?: string; finish?: string }
  | { status: number; message: string };

/** Chooses the reply from the request body and how many requests came before it (0-based). */
export type Script = (body: Record<string, unknown>, index: number, headers: Headers) => ScriptedReply;

export interface ScriptedModel {
  /** `http://127.0.0.1:PORT/v1` (a base URL for the `openai` adapter). */
  baseUrl: string;
  readonly bodies: Array<Record<string, unknown>>;
  /** The `Authorization` header of each request, in order (null when absent). */
  readonly authorizations: Array<string | null>;
  script: Script;
  /** Milliseconds to wait before answering (every reply). */
  delayMs: number;
  stop(): void;
}

export function startScriptedModel(script: Script): ScriptedModel {
  const model: ScriptedModel = {
    baseUrl: "",
    bodies: [],
    authorizations: [],
    script,
    delayMs: 0,
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(req) {
      const body = (await req.json()) as Record<string, unknown>;
      const index = model.bodies.length;
      model.bodies.push(body);
      model.authorizations.push(req.headers.get("authorization"));
      if (model.delayMs > 0) await Bun.sleep(model.delayMs);
      const reply = model.script(body, index, req.headers);
      if ("status" in reply) return Response.json({ error: { message: reply.message, type: "server_error" } }, { status: reply.status });
      return body.stream === true ? sse(reply, index) : Response.json(completion(reply, index));
    },
  });
  model.baseUrl = `http://127.0.0.1:${server.port}/v1`;
  return model;
}

type Answer = Exclude<ScriptedReply, { status: number }>;

function callsOf(reply: Answer, index: number) {
  if (!("calls" in reply)) return [];
  return reply.calls.map((call, i) => ({ id: call.id ?? `call_${index}_${i}`, type: "function", function: { name: call.name, arguments: JSON.stringify(call.args ?? {}) } }));
}

function reasoningOf(reply: Answer): string | undefined {
  return "reasoning" in reply ? reply.reasoning : undefined;
}

function finishOf(reply: Answer): string {
  return reply.finish ?? ("calls" in reply ? "tool_calls" : "stop");
}

const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS };

function completion(reply: Answer, index: number): Record<string, unknown> {
  const calls = callsOf(reply, index);
  return {
    id: `chatcmpl-${index}`,
    object: "chat.completion",
    created: 1754042400,
    model: "scripted",
    choices: [{ index: 0, finish_reason: finishOf(reply), message: { role: "assistant", content: reply.text ?? null, ...(calls.length > 0 ? { tool_calls: calls } : {}), ...(reasoningOf(reply) ? { reasoning: reasoningOf(reply) } : {}) } }],
    usage,
  };
}

function sse(reply: Answer, index: number): Response {
  const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) =>
    `data: ${JSON.stringify({ id: `chatcmpl-${index}`, object: "chat.completion.chunk", created: 1754042400, model: "scripted", choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`;
  const frames = [chunk({ role: "assistant", content: "" })];
  const reasoning = reasoningOf(reply);
  if (reasoning) for (const word of reasoning.split(/(?<= )/)) frames.push(chunk({ reasoning: word }));
  if (reply.text) for (const word of reply.text.split(/(?<= )/)) frames.push(chunk({ content: word }));
  callsOf(reply, index).forEach((call, i) => {
    frames.push(chunk({ tool_calls: [{ index: i, id: call.id, type: "function", function: { name: call.function.name, arguments: "" } }] }));
    frames.push(chunk({ tool_calls: [{ index: i, function: { arguments: call.function.arguments } }] }));
  });
  frames.push(chunk({}, finishOf(reply)));
  frames.push(`data: ${JSON.stringify({ id: `chatcmpl-${index}`, object: "chat.completion.chunk", created: 1754042400, model: "scripted", choices: [], usage })}\n\n`);
  frames.push("data: [DONE]\n\n");
  return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
}
