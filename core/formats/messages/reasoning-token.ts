/**
 * Carrying non-Anthropic reasoning state through a Messages client ("signatures and encrypted content carried
 * back on the next turn where the upstream needs them").
 *
 * A Messages client can only hand back `thinking {thinking, signature}`. When the reasoning came from another family
 * (OpenAI encrypted content, Gemini thought signatures), the encoder packs what the next turn needs into the
 * `signature` string behind a gateway prefix, and the decoder unpacks it. Anthropic's own signatures pass untouched,
 * so a native round trip stays byte-exact.
 */
import { ANTHROPIC_REASONING_FORMAT } from "../../model/anthropic-names.ts";
import type { ReasoningPart } from "../../model/parts.ts";

/** Prefix of a packed token; never produced by Anthropic, whose signatures are base64. */
const PREFIX = "gwr1.";

interface Packed {
  f?: string;
  s?: string;
  e?: string;
  i?: string;
}

/** True when the part is Anthropic's own (or unlabelled, which only Anthropic-shaped sources produce). */
export function isAnthropicReasoning(part: ReasoningPart): boolean {
  return part.format === undefined ? part.encrypted === undefined : part.format.startsWith("anthropic");
}

/**
 * The `signature` a `thinking` block should carry for this part: Anthropic's own signature as is, a packed token for
 * another family's state, or undefined when there is nothing to carry.
 */
export function signatureFor(part: ReasoningPart): string | undefined {
  if (isAnthropicReasoning(part)) return part.signature;
  const packed: Packed = {};
  if (part.format !== undefined) packed.f = part.format;
  if (part.signature !== undefined) packed.s = part.signature;
  if (part.encrypted !== undefined) packed.e = part.encrypted;
  if (part.id !== undefined) packed.i = part.id;
  if (packed.s === undefined && packed.e === undefined) return undefined;
  return PREFIX + Buffer.from(JSON.stringify(packed), "utf8").toString("base64url");
}

/**
 * The reasoning fields a client-sent `signature` stands for: a packed token is unpacked into its original family's
 * fields; anything else is an Anthropic signature. An empty signature means "unsigned".
 */
export function reasoningFromSignature(signature: string): Pick<ReasoningPart, "signature" | "encrypted" | "id" | "format"> {
  if (signature.startsWith(PREFIX)) {
    const packed = unpack(signature.slice(PREFIX.length));
    if (packed !== undefined) {
      const out: Pick<ReasoningPart, "signature" | "encrypted" | "id" | "format"> = {};
      if (packed.f !== undefined) out.format = packed.f;
      if (packed.s !== undefined) out.signature = packed.s;
      if (packed.e !== undefined) out.encrypted = packed.e;
      if (packed.i !== undefined) out.id = packed.i;
      return out;
    }
  }
  return signature === "" ? { format: ANTHROPIC_REASONING_FORMAT } : { signature, format: ANTHROPIC_REASONING_FORMAT };
}

function unpack(text: string): Packed | undefined {
  try {
    const value: unknown = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
    if (typeof value !== "object" || value === null) return undefined;
    const out: Packed = {};
    for (const key of ["f", "s", "e", "i"] as const) {
      const field = (value as Record<string, unknown>)[key];
      if (typeof field === "string") out[key] = field;
    }
    return out;
  } catch {
    return undefined;
  }
}
