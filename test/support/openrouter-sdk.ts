/**
 * The official OpenRouter SDK (`@openrouter/sdk`, whose API the spec mirrors with the brand renamed) pointed at a
 * test gateway, with an HTTP client that can (a) keep the raw JSON bodies it received, so a test sees fields the
 * SDK's schemas strip, and (b) rename the brand in what it sends: the SDK refuses to send a tool type its own
 * schemas do not list (`service:datetime`), so a test writes `openrouter:datetime` and the wire carries
 * `service:datetime`, as the spec names it.
 */
import { HTTPClient, OpenRouter } from "@openrouter/sdk";
import type { ChatRequest, ChatResult, ChatStreamChunk, OpenResponsesResult, ResponsesRequest, StreamEvents } from "@openrouter/sdk/models";
import type { TestGateway } from "./gateway.ts";

export interface SdkRig {
  sdk: OpenRouter;
  /** JSON bodies of the answers so far, newest last (streams are not kept). */
  bodies: unknown[];
}

export function sdkClient(gw: TestGateway, key: string, opts: { renameBrand?: boolean } = {}): SdkRig {
  const bodies: unknown[] = [];
  const http = new HTTPClient();
  if (opts.renameBrand) {
    http.addHook("beforeRequest", async (request) => {
      const body = await request.clone().text();
      if (!body.includes('"openrouter:')) return request;
      const headers = new Headers(request.headers);
      headers.delete("content-length");
      return new Request(request, { headers, body: body.replaceAll('"openrouter:', '"service:') });
    });
  }
  http.addHook("response", async (response) => {
    if (response.headers.get("content-type")?.includes("application/json")) bodies.push(await response.clone().json());
  });
  return { sdk: new OpenRouter({ apiKey: key, serverURL: gw.baseUrl, httpClient: http }), bodies };
}

type Options = Parameters<OpenRouter["chat"]["send"]>[1];

/** `chat.send` without streaming (the SDK types every answer as "result or stream"; this one is a result). */
export async function chatOnce(sdk: OpenRouter, request: Omit<ChatRequest, "stream">, options?: Options): Promise<ChatResult> {
  const reply = await sdk.chat.send({ chatRequest: { ...request, stream: false } }, options);
  if (Symbol.asyncIterator in reply) throw new Error("expected a chat result, got a stream");
  return reply;
}

/** `chat.send` streamed, drained. */
export async function chatChunks(sdk: OpenRouter, request: Omit<ChatRequest, "stream">, options?: Options): Promise<ChatStreamChunk[]> {
  const reply = await sdk.chat.send({ chatRequest: { ...request, stream: true } }, options);
  if (!(Symbol.asyncIterator in reply)) throw new Error("expected a chat stream, got a result");
  return collect(reply);
}

/** `responses.send` without streaming. */
export async function respondOnce(sdk: OpenRouter, request: Omit<ResponsesRequest, "stream">, options?: Options): Promise<OpenResponsesResult> {
  const reply = await sdk.responses.send({ responsesRequest: { ...request, stream: false } }, options);
  if (Symbol.asyncIterator in reply) throw new Error("expected a response, got a stream");
  return reply;
}

/** `responses.send` streamed, drained. */
export async function responseEvents(sdk: OpenRouter, request: Omit<ResponsesRequest, "stream">, options?: Options): Promise<StreamEvents[]> {
  const reply = await sdk.responses.send({ responsesRequest: { ...request, stream: true } }, options);
  if (!(Symbol.asyncIterator in reply)) throw new Error("expected a response stream, got a response");
  return collect(reply);
}

/** Drains an SDK event stream. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of stream) out.push(item);
  return out;
}

/**
 * Where the SDK fell back to its "unknown variant" (`{type: "UNKNOWN", isUnknown: true, raw}`): its discriminated
 * unions accept any object, so "it parsed" alone proves little. Paths with the raw `type`, e.g. `.output[0] service:datetime`.
 */
export function unknownVariants(value: unknown, path = ""): string[] {
  if (Array.isArray(value)) return value.flatMap((v, i) => unknownVariants(v, `${path}[${i}]`));
  if (value === null || typeof value !== "object") return [];
  const o = value as Record<string, unknown>;
  if (o.isUnknown === true) return [`${path} ${String((o.raw as { type?: unknown } | undefined)?.type)}`];
  return Object.entries(o).flatMap(([k, v]) => unknownVariants(v, `${path}.${k}`));
}
