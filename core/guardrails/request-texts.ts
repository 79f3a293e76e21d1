/**
 * The text of a canonical request that input filters read and may rewrite ("messages, tool-call args,
 * prompt"): system parts, each message's text, reasoning replayed in history, tool results, and every string value
 * inside tool-call arguments (scanned one by one, so a redaction never breaks the JSON around it). Images and files
 * are not text and are not read.
 */
import type { CanonicalRequest } from "../model/request.ts";
import type { Part, TextPart } from "../model/parts.ts";

export type SlotRole = "system" | "user" | "assistant" | "tool";

/** One piece of text, with the role of the message it belongs to, and a way to replace it. */
export interface TextSlot {
  role: SlotRole;
  text: string;
  set(value: string): void;
}

export function requestSlots(request: CanonicalRequest): TextSlot[] {
  const slots: TextSlot[] = [];
  for (const part of request.system) slots.push(textSlot("system", part));
  for (const message of request.messages) {
    for (const part of message.parts) partSlots(message.role, part, slots);
  }
  return slots;
}

function textSlot(role: SlotRole, part: { text: string }): TextSlot {
  return { role, text: part.text, set: (value) => void (part.text = value) };
}

function partSlots(role: SlotRole, part: Part, slots: TextSlot[]): void {
  switch (part.type) {
    case "text":
    case "reasoning":
    case "refusal":
      slots.push(textSlot(role, part));
      return;
    case "tool-call":
      jsonSlots(role, part.arguments, (value) => void (part.arguments = value), slots);
      return;
    case "server-tool":
      jsonSlots(role, part.arguments, (value) => void (part.arguments = value), slots);
      return;
    case "tool-result": {
      if (typeof part.content === "string") {
        slots.push({ role, text: part.content, set: (value) => void (part.content = value) });
        return;
      }
      for (const item of part.content) if (item.type === "text") slots.push(textSlot(role, item as TextPart));
      return;
    }
    default:
      return;
  }
}

/**
 * The string values of a JSON text, each a slot whose `set` re-serialises the whole value; text that is not JSON is
 * one slot as it is.
 */
export function jsonSlots(role: SlotRole, json: string, write: (value: string) => void, slots: TextSlot[]): void {
  let value: unknown;
  try {
    value = JSON.parse(json);
  } catch {
    slots.push({ role, text: json, set: write });
    return;
  }
  const root = { value };
  const visit = (holder: Record<string | number, unknown>, key: string | number) => {
    const v = holder[key];
    if (typeof v === "string") {
      slots.push({
        role,
        text: v,
        set: (replacement) => {
          holder[key] = replacement;
          write(JSON.stringify(root.value));
        },
      });
    } else if (Array.isArray(v)) v.forEach((_, i) => visit(v as unknown as Record<number, unknown>, i));
    else if (typeof v === "object" && v !== null) for (const k of Object.keys(v)) visit(v as Record<string, unknown>, k);
  };
  visit(root as unknown as Record<string, unknown>, "value");
}
