/**
 * The OpenAI embeddings call (`POST …/embeddings` `{model, input, dimensions?, encoding_format: "float", user?}` →
 * `data[].{index, embedding}`, `usage.prompt_tokens`), shared by every adapter whose upstream speaks it: OpenAI and
 * the compatible servers, Azure deployments. Floats are always asked for (the gateway encodes base64 itself);
 * the vectors are put back in input order by their `index`.
 */
import type { EmbeddingCall, EmbeddingResult } from "../retrieval/types.ts";
import { postJson, readJsonObject, unexpectedBody, type PostJsonOptions } from "./http.ts";

/** The exact body sent. */
export interface OpenAiEmbeddingsBody {
  model: string;
  input: string[] | number[][];
  encoding_format: "float";
  dimensions?: number;
  user?: string;
}

interface OpenAiEmbeddingsReply {
  data?: Array<{ index?: number; embedding?: unknown }>;
  usage?: { prompt_tokens?: number; total_tokens?: number };
}

export function openAiEmbeddingsBody(call: EmbeddingCall, model: string | undefined = call.target.upstreamModel): OpenAiEmbeddingsBody {
  const body = { ...(model === undefined ? {} : { model }), input: call.request.inputs, encoding_format: "float" } as OpenAiEmbeddingsBody;
  if (call.request.dimensions !== undefined) body.dimensions = call.request.dimensions;
  if (call.request.user !== undefined) body.user = call.request.user;
  return body;
}

/**
 * Posts `body` to `url` and reads the vectors. `model: undefined` leaves the field out (an Azure deployment URL
 * names the model itself).
 */
export async function openAiEmbeddings(call: EmbeddingCall, url: string, headers: Record<string, string>, body: Partial<OpenAiEmbeddingsBody> = openAiEmbeddingsBody(call), options: PostJsonOptions = {}): Promise<EmbeddingResult> {
  call.onUpstreamBody?.(body);
  const response = await postJson(call, url, body, headers, options);
  const reply = await readJsonObject<OpenAiEmbeddingsReply>(call, response);
  if (!Array.isArray(reply.data)) throw unexpectedBody(call, "no data array");
  const vectors: number[][] = new Array(reply.data.length);
  reply.data.forEach((entry, position) => {
    const index = typeof entry.index === "number" ? entry.index : position;
    if (!Array.isArray(entry.embedding) || index < 0 || index >= vectors.length) throw unexpectedBody(call, "an embedding that is not a float array");
    vectors[index] = entry.embedding as number[];
  });
  const tokens = reply.usage?.prompt_tokens ?? reply.usage?.total_tokens;
  return typeof tokens === "number" ? { vectors, inputTokens: tokens } : { vectors };
}
