/**
 * Canonical system + messages → Gemini `systemInstruction` and `contents`. Thought signatures travel back on the part
 * they came with: a Gemini reasoning part carries the signature of the part right after it (see `events.ts`), so
 * here it is attached to that next part again.
 */
import type { Message, Part, ReasoningPart, TextPart, ToolResultPart, Warning } from "../../core/sdk/index.ts";
import { isHttpUrl, parseDataUrl, warnUnsupported } from "../../core/sdk/provider.ts";
import type { GeminiContent, GeminiPart } from "./wire.ts";

/** The canonical `format` of Gemini reasoning (thought summaries and thought signatures). */
export const GEMINI_REASONING_FORMAT = "google-gemini-v1";

/** Google's documented sentinel for function calls in histories Gemini did not produce. */
export const SKIP_SIGNATURE = "skip_thought_signature_validator";

/** `systemInstruction` from the system parts. */
export function toSystemInstruction(system: readonly TextPart[], warnings: Warning[]): { parts: GeminiPart[] } | undefined {
  const parts = system.filter((p) => p.text !== "");
  if (parts.length === 0) return undefined;
  if (parts.some((p) => p.cache !== undefined)) warnCache(warnings);
  return { parts: parts.map((p) => ({ text: p.text })) };
}

/** Converts the conversation; tool results become `functionResponse` parts of a user turn; same-role turns merge. */
export function toContents(messages: readonly Message[], warnings: Warning[], signaturePlaceholder: boolean): GeminiContent[] {
  const callNames = new Map<string, string>();
  const out: GeminiContent[] = [];
  for (const message of messages) {
    const role = message.role === "assistant" ? "model" : "user";
    const parts = role === "model" ? modelParts(message.parts, callNames, warnings, signaturePlaceholder) : userParts(message.parts, callNames, warnings);
    if (parts.length === 0) continue;
    const last = out.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else out.push({ role, parts });
  }
  return out;
}

function warnCache(warnings: Warning[]): void {
  warnUnsupported(warnings, "cache_control", "Gemini caches prompts implicitly; cache_control marks were not sent");
}

/** An image or file → `inlineData` (data: URL) or `fileData` (http URL or Files API URI). */
function mediaPart(url: string, mediaType: string | undefined): GeminiPart {
  const data = parseDataUrl(url);
  if (data) return { inlineData: { mimeType: data.mediaType, data: data.base64 } };
  const fileData: NonNullable<GeminiPart["fileData"]> = { fileUri: url };
  const mimeType = mediaType !== undefined && !mediaType.endsWith("/*") ? mediaType : isHttpUrl(url) ? guessMediaType(url) : undefined;
  if (mimeType !== undefined) fileData.mimeType = mimeType;
  return { fileData };
}

const EXTENSION_TYPES: Record<string, string> = {
  png: "image/png",
  jpg: "image/jpeg",
  jpeg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  pdf: "application/pdf",
};

/** Gemini wants a mime type with `fileData`; an http URL's extension is the only hint there is. */
function guessMediaType(url: string): string | undefined {
  const extension = /\.([a-z0-9]+)(?:[?#]|$)/i.exec(url)?.[1]?.toLowerCase();
  return extension === undefined ? undefined : EXTENSION_TYPES[extension];
}

function userParts(parts: readonly Part[], callNames: ReadonlyMap<string, string>, warnings: Warning[]): GeminiPart[] {
  const out: GeminiPart[] = [];
  for (const part of parts) {
    if ("cache" in part && part.cache !== undefined) warnCache(warnings);
    switch (part.type) {
      case "text":
        if (part.text !== "") out.push({ text: part.text });
        break;
      case "image":
        out.push(mediaPart(part.url, part.mediaType));
        break;
      case "file":
        out.push(mediaPart(part.data, part.mediaType));
        break;
      case "tool-result":
        out.push(functionResponse(part, callNames, warnings));
        break;
      default:
        warnUnsupported(warnings, `messages.user.${part.type}`, `A ${part.type} part in a user turn cannot be sent to Gemini and was dropped`);
    }
  }
  return out;
}

/**
 * `functionResponse.response` must be an object: a JSON object result is sent as is; anything else goes under
 * `output` (or `error` for a failed call), the keys Gemini documents for function results.
 */
function functionResponse(part: ToolResultPart, callNames: ReadonlyMap<string, string>, warnings: Warning[]): GeminiPart {
  let text: string;
  if (typeof part.content === "string") text = part.content;
  else {
    if (part.content.some((p) => p.type === "image")) {
      warnUnsupported(warnings, "tool_result.image", "Images inside tool results are not sent to Gemini");
    }
    text = part.content.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("\n");
  }
  let value: unknown = text;
  try {
    value = JSON.parse(text);
  } catch {
    // plain text result
  }
  const key = part.isError ? "error" : "output";
  const response =
    typeof value === "object" && value !== null && !Array.isArray(value) && !part.isError ? (value as Record<string, unknown>) : { [key]: value };
  const name = part.name ?? callNames.get(part.callId);
  if (name === undefined) warnUnsupported(warnings, "tool_result.name", "A tool result whose call is not in the history was sent with its call id as the function name");
  return { functionResponse: { name: name ?? part.callId, response } };
}

function modelParts(parts: readonly Part[], callNames: Map<string, string>, warnings: Warning[], placeholder: boolean): GeminiPart[] {
  const out: GeminiPart[] = [];
  let pending: string | undefined;
  let firstCall = true;
  const push = (part: GeminiPart) => {
    if (pending !== undefined) part.thoughtSignature = pending;
    pending = undefined;
    out.push(part);
  };
  for (const part of parts) {
    switch (part.type) {
      case "reasoning":
        if (isGeminiReasoning(part)) {
          if (part.signature) pending = part.signature;
        } else warnUnsupported(warnings, "messages.assistant.reasoning", "Reasoning from another model family cannot be sent to Gemini and was dropped");
        break;
      case "text":
      case "refusal":
        if (part.text !== "" || pending !== undefined) push({ text: part.text });
        break;
      case "tool-call": {
        callNames.set(part.id, part.name);
        const call: GeminiPart = { functionCall: { name: part.name, args: parseArgs(part.arguments, warnings) } };
        push(call);
        if (firstCall && call.thoughtSignature === undefined && placeholder) {
          call.thoughtSignature = SKIP_SIGNATURE;
          warnUnsupported(warnings, "messages.assistant.thought_signature", "A replayed function call had no Gemini thought signature; Google's skip sentinel was sent");
        }
        firstCall = false;
        break;
      }
      default:
        warnUnsupported(warnings, `messages.assistant.${part.type}`, `A ${part.type} part in an assistant turn cannot be sent to Gemini and was dropped`);
    }
  }
  // A trailing signature belonged to the last part of the turn (Gemini signs the final part of a text answer).
  if (pending !== undefined) {
    const last = out.at(-1);
    if (last !== undefined && last.thoughtSignature === undefined) last.thoughtSignature = pending;
    else out.push({ text: "", thoughtSignature: pending });
  }
  return out;
}

function isGeminiReasoning(part: ReasoningPart): boolean {
  return part.format === GEMINI_REASONING_FORMAT;
}

function parseArgs(args: string, warnings: Warning[]): Record<string, unknown> {
  if (args.trim() === "") return {};
  try {
    const value: unknown = JSON.parse(args);
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  warnUnsupported(warnings, "functionCall.args", "Tool-call arguments that are not a JSON object were sent to Gemini as {}");
  return {};
}
