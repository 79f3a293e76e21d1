/**
 * The upstream of `bench/agent-loop.ts`, in its own process: an instant scripted OpenAI chat-completions model (JSON
 * and SSE, as the `openai` adapter calls it), like test/support/scripted-model.ts but keeping no request bodies.
 * A request that offers tools and carries fewer than two tool results gets a call to `datetime`; every other request
 * (the loop's third turn, and every plain request) gets the same text answer. So a loop request makes exactly three
 * model turns and a plain request one, and all final answers are the same bytes. IPC `count` replies with how many
 * requests of each kind it answered (the ready line carries the answer text), so the driver can check that every loop really made three turns.
 */
import { announce } from "./child.ts";

const ANSWER = "It is a quarter past two in the afternoon, UTC, on a weekday; this benchmark answer has a fixed size.";
const usage = { prompt_tokens: 100, completion_tokens: 20, total_tokens: 120 };
const counts = { requests: 0, toolTurns: 0, textTurns: 0 };

interface Body {
  stream?: boolean;
  tools?: unknown[];
  messages?: Array<{ role?: string }>;
}

function chunk(id: string, delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1754042400, model: "scripted", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

const server = Bun.serve({
  hostname: "127.0.0.1",
  port: 0,
  async fetch(req) {
    const body = (await req.json()) as Body;
    const n = counts.requests++;
    const id = `chatcmpl-${n}`;
    const toolResults = (body.messages ?? []).filter((m) => m.role === "tool").length;
    const call = (body.tools?.length ?? 0) > 0 && toolResults < 2;
    if (call) counts.toolTurns++;
    else counts.textTurns++;
    const toolCall = { id: `call_${n}`, type: "function", function: { name: "datetime", arguments: JSON.stringify({ timezone: "UTC" }) } };
    if (body.stream !== true) {
      const message = call ? { role: "assistant", content: null, tool_calls: [toolCall] } : { role: "assistant", content: ANSWER };
      return Response.json({
        id,
        object: "chat.completion",
        created: 1754042400,
        model: "scripted",
        choices: [{ index: 0, finish_reason: call ? "tool_calls" : "stop", message }],
        usage,
      });
    }
    const frames = [chunk(id, { role: "assistant", content: "" })];
    if (call) {
      frames.push(chunk(id, { tool_calls: [{ index: 0, id: toolCall.id, type: "function", function: { name: "datetime", arguments: "" } }] }));
      frames.push(chunk(id, { tool_calls: [{ index: 0, function: { arguments: toolCall.function.arguments } }] }));
    } else {
      for (const word of ANSWER.split(/(?<= )/)) frames.push(chunk(id, { content: word }));
    }
    frames.push(chunk(id, {}, call ? "tool_calls" : "stop"));
    frames.push(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1754042400, model: "scripted", choices: [], usage })}\n\n`);
    frames.push("data: [DONE]\n\n");
    return new Response(frames.join(""), { headers: { "content-type": "text/event-stream" } });
  },
});

process.on("message", (message: unknown) => {
  if (message === "count") process.send?.({ ...counts });
});
process.on("SIGTERM", () => {
  void server.stop(true);
  process.exit(0);
});
announce(server.port ?? 0, { url: `http://127.0.0.1:${server.port}/v1`, answer: ANSWER });
