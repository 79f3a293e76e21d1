/**
 * File annotations: the parsed text of a file comes back on the reply as
 * `{type: "file", file: {hash, name?, content: [{type: "text", text}]}}` — chat `message.annotations`, Responses
 * `output_text.annotations` — and a client that sends it back on the assistant message of its next request spares
 * the gateway parsing the same file again (matched by `hash`: the SHA-256 of the file's data URL or URL as sent).
 */
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import type { EventStream } from "../../core/sdk/index.ts";
import type { Part, TextPart } from "../../core/sdk/index.ts";

export interface FileAnnotation {
  type: "file";
  file: { hash: string; name?: string; content: Array<{ type: "text"; text: string }> };
}

export function fileAnnotation(hash: string, name: string | undefined, text: string): FileAnnotation {
  return { type: "file", file: { hash, ...(name !== undefined ? { name } : {}), content: [{ type: "text", text }] } };
}

/** The hash a file is known by. */
export function fileHash(data: string): string {
  return new Bun.CryptoHasher("sha256").update(data).digest("hex");
}

/** The text of a file annotation, or undefined when the value is not one. */
function annotationText(value: unknown): { hash: string; text: string } | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const { type, file } = value as { type?: unknown; file?: unknown };
  if (type !== "file" || typeof file !== "object" || file === null) return undefined;
  const { hash, content } = file as { hash?: unknown; content?: unknown };
  if (typeof hash !== "string" || !Array.isArray(content)) return undefined;
  const texts = content.filter((c): c is { type: "text"; text: string } => typeof c === "object" && c !== null && c.type === "text" && typeof c.text === "string");
  return texts.length > 0 ? { hash, text: texts.map((c) => c.text).join("\n\n") } : undefined;
}

/**
 * The file texts a client sent back, by hash: from text parts' annotations (Responses keeps them on decode) and
 * from chat assistant messages' `annotations` in the body as received (chat decode drops them with an
 * "unknown field" warning, which is withdrawn here since they were used).
 */
export function resentTexts(request: CanonicalRequest): Map<string, string> {
  const found = new Map<string, string>();
  const take = (list: unknown) => {
    if (!Array.isArray(list)) return false;
    let used = false;
    for (const value of list) {
      const annotation = annotationText(value);
      if (annotation) {
        found.set(annotation.hash, annotation.text);
        used = true;
      }
    }
    return used;
  };
  for (const message of request.messages) {
    if (message.role !== "assistant") continue;
    for (const part of message.parts) if (part.type === "text") take(part.annotations);
  }
  if (request.format === "chat" && Array.isArray(request.original.messages)) {
    const used = new Set<string>();
    request.original.messages.forEach((message: unknown, index) => {
      if (typeof message === "object" && message !== null && take((message as { annotations?: unknown }).annotations)) used.add(`messages[${index}].annotations`);
    });
    // In place: the list is shared with whoever reports it.
    const list = request.warnings;
    for (let i = list.length - 1; i >= 0; i--) {
      const warning = list[i]!;
      if (warning.code === "unknown_field" && warning.field !== undefined && used.has(warning.field)) list.splice(i, 1);
    }
  }
  return found;
}

/** The reply's parts with `annotations` added to its first text part (none: unchanged). */
export function annotateParts(parts: readonly Part[], annotations: readonly FileAnnotation[]): Part[] {
  const index = parts.findIndex((part) => part.type === "text");
  if (index < 0) return [...parts];
  const text = parts[index] as TextPart;
  const annotated: TextPart = { ...text, annotations: [...(text.annotations ?? []), ...annotations] };
  return parts.map((part, i) => (i === index ? annotated : part));
}

/** The stream with `annotations` added to its first text part's end. */
export async function* annotateStream(events: EventStream, annotations: readonly FileAnnotation[]): EventStream {
  let done = false;
  for await (const event of events) {
    if (!done && event.type === "text-end") {
      done = true;
      yield { ...event, annotations: [...(event.annotations ?? []), ...annotations] };
    } else yield event;
  }
}
