/**
 * The `openai` npm client against one wire format, with no port: the client gets an injected fetch that plays the
 * gateway (validate the body with the format's compiled schema, decode it, answer with the format's encoder).
 */
import { expect } from "bun:test";
import OpenAI from "openai";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { WireFormat } from "../../../core/formats/format.ts";
import { collect } from "../../../core/model/collect.ts";
import type { StreamEvent } from "../../../core/model/events.ts";
import type { CanonicalRequest } from "../../../core/model/request.ts";
import { replay } from "../../support/iterables.ts";

const validators = new Map<WireFormat, ReturnType<typeof TypeCompiler.Compile>>();

/** A fetch that plays the gateway: validate + decode the body (pushed to `seen`), then answer from the given events. */
function gatewayFetch(format: WireFormat, events: StreamEvent[], seen: CanonicalRequest[]): typeof fetch {
  let validator = validators.get(format);
  if (!validator) validators.set(format, (validator = TypeCompiler.Compile(format.schema)));
  const handler = async (_url: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const body = JSON.parse(String(init?.body)) as Record<string, unknown>;
    expect(validator.Check(body)).toBe(true);
    const request = format.decode(body, new Headers(init?.headers));
    seen.push(request);
    const ctx = { request, generationId: "gen-client" };
    if (!request.stream) return Response.json(format.encode(await collect(replay(events)), ctx));
    const frames = format.stream(replay(events), ctx);
    const stream = new ReadableStream<Uint8Array>({
      async start(controller) {
        for await (const frame of frames) controller.enqueue(new TextEncoder().encode(frame));
        controller.close();
      },
    });
    return new Response(stream, { headers: { "content-type": "text/event-stream" } });
  };
  return handler as typeof fetch;
}

/** An `openai` client whose requests `format` decodes (into `seen`) and whose answers are `events`, encoded by `format`. */
export function formatClient(format: WireFormat, events: StreamEvent[], seen: CanonicalRequest[] = []): OpenAI {
  return new OpenAI({ apiKey: "test", baseURL: "http://gateway.test/api/v1", fetch: gatewayFetch(format, events, seen), maxRetries: 0 });
}
