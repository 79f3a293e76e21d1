/**
 * What the fake upstream received, read in each upstream's own dialect and flattened into one neutral list of items,
 * so a matrix cell can assert "the upstream got the system prompt / the turns / the image / the tool call with its id
 * and arguments / the tool result / the reasoning signature" the same way for every adapter.
 */
import { wireFamily, type AdapterId } from "../../support/fake-upstream/fixtures.ts";
import type { RecordedRequest } from "../../support/fake-upstream/server.ts";

type Json = Record<string, unknown>;

export type UpstreamItem =
  | { kind: "text"; role: "user" | "assistant"; text: string }
  /** `src`: an http(s) URL, or `data:<mime>;base64,<payload>`. */
  | { kind: "image"; src: string }
  | { kind: "call"; id: string | undefined; name: string; args: unknown }
  | { kind: "result"; id: string | undefined; name: string | undefined; content: string }
  | { kind: "reasoning"; signature?: string; encrypted?: string; id?: string; text?: string };

export interface UpstreamView {
  system: string | undefined;
  items: UpstreamItem[];
  maxTokens: number | undefined;
  stream: boolean;
  tools: string[];
  body: Json;
}

const parse = (value: unknown): unknown => (typeof value === "string" ? JSON.parse(value) : value);
const textOf = (content: unknown): string =>
  typeof content === "string" ? content : ((content as Json[] | undefined) ?? []).map((c) => (c.text as string | undefined) ?? "").join("");

function openaiView(body: Json): Omit<UpstreamView, "body"> {
  const items: UpstreamItem[] = [];
  let system: string | undefined;
  for (const m of body.messages as Json[]) {
    const role = m.role as string;
    if (role === "system" || role === "developer") system = textOf(m.content);
    else if (role === "tool") items.push({ kind: "result", id: m.tool_call_id as string, name: undefined, content: textOf(m.content) });
    else if (role === "user") {
      if (typeof m.content === "string") items.push({ kind: "text", role: "user", text: m.content });
      else
        for (const part of m.content as Json[]) {
          if (part.type === "text") items.push({ kind: "text", role: "user", text: part.text as string });
          if (part.type === "image_url") items.push({ kind: "image", src: (part.image_url as Json).url as string });
        }
    } else {
      for (const d of (m.reasoning_details as Json[] | undefined) ?? []) {
        const item: UpstreamItem = { kind: "reasoning" };
        if (d.signature) item.signature = d.signature as string;
        if (d.type === "reasoning.encrypted") item.encrypted = d.data as string;
        if (d.id) item.id = d.id as string;
        if (typeof d.text === "string") item.text = d.text;
        items.push(item);
      }
      if (m.content) items.push({ kind: "text", role: "assistant", text: textOf(m.content) });
      for (const c of (m.tool_calls as Json[] | undefined) ?? []) {
        const fn = c.function as Json;
        items.push({ kind: "call", id: c.id as string, name: fn.name as string, args: parse(fn.arguments) });
      }
    }
  }
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) => (t.function as Json).name as string);
  return { system, items, maxTokens: (body.max_completion_tokens ?? body.max_tokens) as number | undefined, stream: body.stream === true, tools };
}

function responsesView(body: Json): Omit<UpstreamView, "body"> {
  const items: UpstreamItem[] = [];
  for (const it of body.input as Json[]) {
    if (it.type === "function_call") items.push({ kind: "call", id: it.call_id as string, name: it.name as string, args: parse(it.arguments) });
    else if (it.type === "function_call_output") items.push({ kind: "result", id: it.call_id as string, name: undefined, content: textOf(it.output) });
    else if (it.type === "reasoning") {
      const item: UpstreamItem = { kind: "reasoning", id: it.id as string };
      if (it.encrypted_content) item.encrypted = it.encrypted_content as string;
      items.push(item);
    } else {
      const role = it.role as "user" | "assistant";
      const content = typeof it.content === "string" ? [{ type: "input_text", text: it.content }] : (it.content as Json[]);
      for (const c of content) {
        if (c.type === "input_text" || c.type === "output_text") items.push({ kind: "text", role, text: c.text as string });
        if (c.type === "input_image") items.push({ kind: "image", src: c.image_url as string });
      }
    }
  }
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) => t.name as string);
  return { system: body.instructions as string | undefined, items, maxTokens: body.max_output_tokens as number | undefined, stream: body.stream === true, tools };
}

function anthropicImage(source: Json): string {
  return source.type === "base64" ? `data:${String(source.media_type)};base64,${String(source.data)}` : (source.url as string);
}

function anthropicView(body: Json): Omit<UpstreamView, "body"> {
  const items: UpstreamItem[] = [];
  for (const m of body.messages as Json[]) {
    const role = m.role as "user" | "assistant";
    for (const b of m.content as Json[]) {
      if (b.type === "text") items.push({ kind: "text", role, text: b.text as string });
      else if (b.type === "image") items.push({ kind: "image", src: anthropicImage(b.source as Json) });
      else if (b.type === "tool_use") items.push({ kind: "call", id: b.id as string, name: b.name as string, args: b.input });
      else if (b.type === "tool_result") items.push({ kind: "result", id: b.tool_use_id as string, name: undefined, content: textOf(b.content) });
      else if (b.type === "thinking") items.push({ kind: "reasoning", signature: b.signature as string, text: b.thinking as string });
      else if (b.type === "redacted_thinking") items.push({ kind: "reasoning", encrypted: b.data as string });
    }
  }
  const system = body.system === undefined ? undefined : textOf(body.system);
  const tools = ((body.tools as Json[] | undefined) ?? []).map((t) => t.name as string);
  return { system, items, maxTokens: body.max_tokens as number, stream: body.stream === true, tools };
}

function geminiView(body: Json, path: string): Omit<UpstreamView, "body"> {
  const items: UpstreamItem[] = [];
  for (const c of body.contents as Json[]) {
    const role = c.role === "model" ? "assistant" : "user";
    for (const p of c.parts as Json[]) {
      // A thought signature belongs to the part it rides on; it is listed just before that part.
      if (typeof p.thoughtSignature === "string") items.push({ kind: "reasoning", signature: p.thoughtSignature });
      if (typeof p.text === "string" && p.text !== "") items.push({ kind: "text", role, text: p.text });
      if (p.inlineData) {
        const d = p.inlineData as Json;
        items.push({ kind: "image", src: `data:${String(d.mimeType)};base64,${String(d.data)}` });
      }
      if (p.fileData) items.push({ kind: "image", src: (p.fileData as Json).fileUri as string });
      if (p.functionCall) {
        const f = p.functionCall as Json;
        items.push({ kind: "call", id: f.id as string | undefined, name: f.name as string, args: f.args });
      }
      if (p.functionResponse) {
        const f = p.functionResponse as Json;
        items.push({ kind: "result", id: f.id as string | undefined, name: f.name as string, content: JSON.stringify(f.response) });
      }
    }
  }
  const system = body.systemInstruction ? textOf((body.systemInstruction as Json).parts) : undefined;
  const config = (body.generationConfig as Json | undefined) ?? {};
  const tools = ((body.tools as Json[] | undefined) ?? []).flatMap((t) => ((t.functionDeclarations as Json[] | undefined) ?? []).map((f) => f.name as string));
  return { system, items, maxTokens: config.maxOutputTokens as number | undefined, stream: path.includes(":streamGenerateContent"), tools };
}

/** Converse: content blocks by member; images as bytes or S3; tool results' text; reasoningContent's signature. */
function bedrockView(body: Json, path: string): Omit<UpstreamView, "body"> {
  const items: UpstreamItem[] = [];
  for (const m of body.messages as Json[]) {
    const role = m.role as "user" | "assistant";
    for (const b of m.content as Json[]) {
      if (typeof b.text === "string") items.push({ kind: "text", role, text: b.text });
      else if (b.image) {
        const image = b.image as { format: string; source: Json };
        const s3 = image.source.s3Location as Json | undefined;
        items.push({ kind: "image", src: s3 ? (s3.uri as string) : `data:image/${image.format};base64,${String(image.source.bytes)}` });
      } else if (b.toolUse) {
        const u = b.toolUse as Json;
        items.push({ kind: "call", id: u.toolUseId as string, name: u.name as string, args: u.input });
      } else if (b.toolResult) {
        const r = b.toolResult as { toolUseId: string; content: Json[] };
        items.push({ kind: "result", id: r.toolUseId, name: undefined, content: textOf(r.content) });
      } else if (b.reasoningContent) {
        const rc = b.reasoningContent as { reasoningText?: Json; redactedContent?: string };
        if (rc.redactedContent !== undefined) items.push({ kind: "reasoning", encrypted: rc.redactedContent });
        else items.push({ kind: "reasoning", signature: rc.reasoningText?.signature as string, text: rc.reasoningText?.text as string });
      }
    }
  }
  const system = body.system === undefined ? undefined : textOf(body.system);
  const config = (body.inferenceConfig as Json | undefined) ?? {};
  const tools = (((body.toolConfig as Json | undefined)?.tools as Json[] | undefined) ?? []).flatMap((t) => (t.toolSpec ? [(t.toolSpec as Json).name as string] : []));
  return { system, items, maxTokens: config.maxTokens as number | undefined, stream: path.endsWith("/converse-stream"), tools };
}

/** The neutral view of one recorded upstream request. */
export function viewOf(adapter: AdapterId, request: RecordedRequest): UpstreamView {
  const body = request.body;
  const family = wireFamily(adapter);
  const view =
    family === "openai"
      ? openaiView(body)
      : family === "openai-responses"
        ? responsesView(body)
        : wireFamily(adapter) === "anthropic"
          ? anthropicView(body)
          : adapter === "bedrock"
            ? bedrockView(body, request.path)
            : geminiView(body, request.path);
  return { ...view, body };
}

/** The conversation's text items as `role: text` lines, for order-sensitive comparisons. */
export function textLines(view: UpstreamView): string[] {
  return view.items.flatMap((i) => (i.kind === "text" ? [`${i.role}: ${i.text}`] : []));
}
