/** `collect(events)`: folds a canonical event stream into one canonical response. */
import { toGatewayError } from "../errors.ts";
import type { EventStream, StreamEvent } from "./events.ts";
import { joinBase64 } from "./audio.ts";
import type { AudioPart, ImagePart, Part, ReasoningPart, ServerToolPart, TextPart, ToolCallPart } from "./parts.ts";
import type { CanonicalResponse } from "./response.ts";
import { emptyUsage } from "./usage.ts";

/** Incremental builder, also used by stream encoders that need the final state (e.g. Responses `completed`). */
export class ResponseBuilder {
  readonly response: CanonicalResponse = {
    id: "",
    model: "",
    provider: "",
    created: 0,
    parts: [],
    finish: { reason: "stop" },
    usage: emptyUsage(),
    warnings: [],
  };
  private readonly open = new Map<string, Part>();
  private sawFinish = false;

  add(event: StreamEvent): void {
    const r = this.response;
    switch (event.type) {
      case "start":
        r.id = event.id;
        r.model = event.model;
        r.provider = event.provider;
        r.created = event.created;
        if (event.serviceTier !== undefined) r.serviceTier = event.serviceTier;
        return;
      case "text-start":
        this.begin(event.id, { type: "text", text: "" });
        return;
      case "text-delta": {
        const part = this.partOf<TextPart>(event.id, "text", () => ({ type: "text", text: "" }));
        part.text += event.delta;
        if (event.logprobs) (r.logprobs ??= []).push(...event.logprobs);
        return;
      }
      case "text-end": {
        const part = this.open.get(event.id);
        if (part?.type === "text" && event.annotations?.length) part.annotations = event.annotations;
        this.open.delete(event.id);
        return;
      }
      case "reasoning-start": {
        const part: ReasoningPart = { type: "reasoning", text: "" };
        if (event.itemId !== undefined) part.id = event.itemId;
        if (event.format !== undefined) part.format = event.format;
        this.begin(event.id, part);
        return;
      }
      case "reasoning-delta": {
        const part = this.partOf<ReasoningPart>(event.id, "reasoning", () => ({ type: "reasoning", text: "" }));
        if (event.kind === "summary") {
          part.summary ??= [];
          if (part.summary.length === 0) part.summary.push("");
          part.summary[part.summary.length - 1] += event.delta;
        } else part.text += event.delta;
        return;
      }
      case "reasoning-end": {
        const part = this.open.get(event.id);
        if (part?.type === "reasoning") {
          if (event.signature !== undefined) part.signature = event.signature;
          if (event.encrypted !== undefined) part.encrypted = event.encrypted;
          if (event.redacted !== undefined) part.redacted = event.redacted;
        }
        this.open.delete(event.id);
        return;
      }
      case "tool-call-start": {
        const part: ToolCallPart = { type: "tool-call", id: event.id, name: event.name, arguments: "" };
        if (event.itemId !== undefined) part.itemId = event.itemId;
        this.begin(event.id, part);
        return;
      }
      case "tool-call-delta": {
        const part = this.open.get(event.id);
        if (part?.type === "tool-call") part.arguments += event.delta;
        return;
      }
      case "tool-call-end":
        this.open.delete(event.id);
        return;
      case "refusal-delta": {
        const part = this.partOf(event.id, "refusal", () => ({ type: "refusal", text: "" }));
        part.text += event.delta;
        return;
      }
      case "image": {
        const part: ImagePart = { type: "image", url: event.url };
        if (event.mediaType !== undefined) part.mediaType = event.mediaType;
        r.parts.push(part);
        return;
      }
      case "audio": {
        // Pieces of one audio output share an id (streamed `delta.audio`): each appends to the part the first began.
        const part = this.partOf<AudioPart>(event.id, "audio", () => ({ type: "audio", data: "" }));
        if (event.data !== undefined) part.data = joinBase64(part.data, event.data);
        if (event.transcript !== undefined) part.transcript = (part.transcript ?? "") + event.transcript;
        if (event.format !== undefined) part.format = event.format;
        if (event.audioId !== undefined) part.id = event.audioId;
        if (event.expiresAt !== undefined) part.expiresAt = event.expiresAt;
        return;
      }
      case "server-tool-start": {
        // `incomplete` until the end event says otherwise: a stream cut while the tool runs leaves it so.
        const part: ServerToolPart = { type: "server-tool", id: event.id, callId: event.callId, name: event.name, arguments: event.arguments, status: "incomplete" };
        this.begin(event.id, part);
        return;
      }
      case "server-tool-end": {
        const part = this.open.get(event.id);
        if (part?.type === "server-tool") {
          part.status = event.status;
          if (event.result !== undefined) part.result = event.result;
          if (event.error !== undefined) part.error = event.error;
        }
        this.open.delete(event.id);
        return;
      }
      case "usage":
        r.usage = event.usage;
        if (event.cost) r.cost = event.cost;
        return;
      case "finish":
        this.sawFinish = true;
        r.finish = event.finish;
        if (event.alignment) r.alignment = event.alignment;
        return;
      case "error": {
        const e = toGatewayError(event.error);
        r.error = { type: e.type, message: e.message, status: e.status, ...(e.metadata ? { metadata: e.metadata } : {}) };
        r.finish = { reason: "error", raw: "error" };
        return;
      }
      case "debug":
      case "server-tool-progress":
        return;
    }
  }

  /** True when the stream ended properly (a finish or error event arrived). */
  get complete(): boolean {
    return this.sawFinish || this.response.error !== undefined;
  }

  private begin(id: string, part: Part): void {
    this.open.set(id, part);
    this.response.parts.push(part);
  }

  private partOf<P extends Part>(id: string, type: P["type"], make: () => P): P {
    const existing = this.open.get(id);
    if (existing?.type === type) return existing as P;
    const part = make();
    this.begin(id, part);
    return part;
  }
}

/** Consumes the whole stream. A stream that throws becomes a response carrying `error`. */
export async function collect(events: EventStream): Promise<CanonicalResponse> {
  const builder = new ResponseBuilder();
  try {
    for await (const event of events) builder.add(event);
  } catch (thrown) {
    builder.add({ type: "error", error: toGatewayError(thrown) });
  }
  return builder.response;
}
