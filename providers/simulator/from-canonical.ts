/**
 * Canonical request → simulator request. Messages are laid out exactly as the `openai` adapter lays them out on the
 * wire (system first as one message, each tool result its own message, reasoning joined), so the in-process simulator
 * and the HTTP simulator behind the `openai` adapter report the same prompt tokens for the same request.
 */
import type { CanonicalRequest, Message, OutputFormat, Part } from "../../core/sdk/index.ts";
import type { SimMessage, SimOutput, SimRequest, SimToolChoice } from "./engine.ts";

/** Reduces a canonical request to what the engine needs. */
export function simRequestFromCanonical(request: CanonicalRequest): SimRequest {
  const messages: SimMessage[] = [];
  if (request.system.length > 0) messages.push({ role: "system", texts: [request.system.map((p) => p.text).join("\n\n")] });
  for (const message of request.messages) appendMessage(messages, message);
  const out: SimRequest = {
    messages,
    tools: request.tools.flatMap((t) => (t.kind === "function" ? [t.parameters === undefined ? { name: t.name } : { name: t.name, parameters: t.parameters }] : [])),
  };
  const choice = toolChoice(request);
  if (choice !== undefined) out.toolChoice = choice;
  if (request.maxTokens !== undefined) out.maxTokens = request.maxTokens;
  const output = simOutput(request.output?.format);
  if (output !== undefined) out.output = output;
  return out;
}

/** Chat `response_format`, Responses `text.format` and Messages `output_config.format`, all decoded to one field. */
function simOutput(format: OutputFormat | undefined): SimOutput | undefined {
  if (format?.type === "json_schema") return { type: "json_schema", schema: format.schema };
  if (format?.type === "json_object") return { type: "json_object" };
  return undefined;
}

function toolChoice(request: CanonicalRequest): SimToolChoice | undefined {
  const choice = request.toolChoice;
  if (choice === undefined) return undefined;
  return choice.type === "tool" ? { name: choice.name } : choice.type;
}

function appendMessage(out: SimMessage[], message: Message): void {
  if (message.role === "assistant") {
    const texts: string[] = [];
    const calls: string[] = [];
    const reasoning: string[] = [];
    const refusals: string[] = [];
    for (const part of message.parts) {
      if (part.type === "text") texts.push(part.text);
      else if (part.type === "reasoning") reasoning.push(part.text);
      else if (part.type === "refusal") refusals.push(part.text);
      else if (part.type === "tool-call") calls.push(part.name, part.arguments);
    }
    out.push({ role: "assistant", texts: [...texts, ...calls, reasoning.join(""), refusals.join("")] });
    for (const part of message.parts) if (part.type === "tool-result") out.push(toolMessage(part));
    return;
  }
  let run: Part[] = [];
  const flush = (): void => {
    const carried = run.filter((p) => p.type === "text" || p.type === "image" || p.type === "file");
    if (message.role === "user" && carried.length > 0) {
      out.push({ role: "user", texts: carried.flatMap((p) => (p.type === "text" ? [p.text] : [])) });
    }
    run = [];
  };
  for (const part of message.parts) {
    if (part.type === "tool-result") {
      flush();
      out.push(toolMessage(part));
    } else run.push(part);
  }
  flush();
}

function toolMessage(part: Extract<Part, { type: "tool-result" }>): SimMessage {
  const texts = typeof part.content === "string" ? [part.content] : part.content.flatMap((c) => (c.type === "text" ? [c.text] : []));
  return { role: "tool", texts };
}
