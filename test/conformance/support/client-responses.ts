/** Responses client driver: request body, result object, and the named-event stream (ending with `[DONE]`). */
import { blankSeen, frameJson, type Conversation, type FormatDriver, type Frame, type Seen, type SeenUsage } from "./client.ts";

type Json = Record<string, unknown>;

function body(conv: Conversation): Json {
  const input: unknown[] = [];
  for (const turn of conv.turns) {
    switch (turn.role) {
      case "user":
        input.push({
          role: "user",
          content: turn.image === undefined ? turn.text : [{ type: "input_text", text: turn.text }, { type: "input_image", image_url: turn.image, detail: "auto" }],
        });
        break;
      case "assistant":
        input.push({ role: "assistant", content: turn.text });
        break;
      case "replay":
        // What the OpenAI docs tell stateless clients to do: append `response.output` to the next input.
        input.push(...turn.items);
        break;
      case "tool":
        input.push({ type: "function_call_output", call_id: turn.callId, output: turn.content });
        break;
    }
  }
  const out: Json = { model: conv.model, input };
  if (conv.system !== undefined) out.instructions = conv.system;
  if (conv.tools) out.tools = conv.tools.map((t) => ({ type: "function", name: t.name, description: t.description, parameters: t.parameters }));
  if (conv.maxTokens !== undefined) out.max_output_tokens = conv.maxTokens;
  if (conv.stream) out.stream = true;
  return { ...out, ...conv.extra };
}

function usageOf(usage: Json | null | undefined): SeenUsage | undefined {
  if (!usage) return undefined;
  return {
    input: usage.input_tokens as number,
    cacheRead: ((usage.input_tokens_details as Json | undefined)?.cached_tokens as number) ?? 0,
    output: usage.output_tokens as number,
    reasoning: ((usage.output_tokens_details as Json | undefined)?.reasoning_tokens as number) ?? 0,
    cost: usage.cost as number | undefined,
  };
}

/** Reads a result object (the JSON body, or the `response` of a terminal stream event). */
function fromResult(result: Json, seen: Seen): Seen {
  const output = (result.output as Json[] | undefined) ?? [];
  for (const item of output) {
    if (item.type === "message") {
      for (const content of (item.content as Json[]) ?? []) if (content.type === "output_text") seen.text += content.text as string;
    } else if (item.type === "reasoning") {
      const summary = ((item.summary as Json[] | undefined) ?? []).map((s) => s.text as string).join("");
      const text = ((item.content as Json[] | undefined) ?? []).map((c) => c.text as string).join("");
      // The raw text when there is one, else the summary: an item with raw text carries it as its summary too.
      seen.reasoning += text !== "" ? text : summary;
    } else if (item.type === "function_call") {
      seen.toolCalls.push({ id: item.call_id as string, name: item.name as string, arguments: item.arguments as string });
    }
  }
  const status = result.status as string;
  const reason = (result.incomplete_details as Json | null)?.reason;
  seen.nativeFinish = reason === undefined ? status : `${status}:${String(reason)}`;
  if (status === "failed") seen.finish = "error";
  else if (status === "incomplete") seen.finish = reason === "max_output_tokens" ? "length" : reason === "content_filter" ? "refusal" : "unknown";
  else if (status === "completed") seen.finish = seen.toolCalls.length > 0 ? "tool_calls" : "stop";
  seen.model = result.model as string;
  seen.usage = usageOf(result.usage as Json | null);
  if (status === "failed") {
    const error = result.error as Json | null;
    const metadata = error?.metadata as Json | undefined;
    seen.error = { type: (result.error_type as string | undefined) ?? (metadata?.error_type as string | undefined), status: undefined, message: error?.message as string | undefined, raw: error };
  }
  seen.metadata = result.service_metadata as Json | undefined;
  seen.replay = output;
  return seen;
}

function fromJson(result: Json): Seen {
  const seen = fromResult(result, blankSeen());
  seen.body = result;
  return seen;
}

const TERMINAL = new Set(["response.completed", "response.incomplete", "response.failed"]);

function fromFrames(frames: Frame[]): Seen {
  let seen = blankSeen();
  let terminal: Json | undefined;
  let deltaText = "";
  const deltaArgs = new Map<string, string>();
  let sawDone = false;
  for (const frame of frames) {
    if (frame.data === "[DONE]") {
      sawDone = true;
      continue;
    }
    const event = frameJson(frame);
    if (!event) continue;
    if (event.type === "response.output_text.delta") deltaText += event.delta as string;
    if (event.type === "response.function_call_arguments.delta") {
      const id = event.item_id as string;
      deltaArgs.set(id, (deltaArgs.get(id) ?? "") + (event.delta as string));
    }
    if (TERMINAL.has(event.type as string)) terminal = event;
  }
  if (terminal) {
    seen = fromResult(terminal.response as Json, seen);
    if (terminal.type === "response.failed" && seen.error) seen.error.type = (terminal.error_type as string | undefined) ?? seen.error.type;
  }
  seen.frames = frames;
  seen.deltaText = deltaText;
  seen.deltaArgs = [...deltaArgs.values()];
  seen.ended = terminal !== undefined && sawDone;
  seen.body = terminal;
  return seen;
}

export const responsesDriver: FormatDriver = { id: "responses", path: "/responses", body, fromJson, fromFrames };
