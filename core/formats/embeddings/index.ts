/** The embeddings wire format, `POST /embeddings` (README "Embeddings and rerank"); also a batch item URL. */
import type { WireFormat } from "../format.ts";
import { refuseStream } from "../shared/no-stream.ts";
import { decodeEmbeddings } from "./decode.ts";
import { encodeEmbeddings } from "./encode.ts";
import { EmbeddingsRequestSchema } from "./schema.ts";

export const embeddingsFormat: WireFormat = Object.freeze({
  id: "embeddings",
  schema: EmbeddingsRequestSchema,
  decode: decodeEmbeddings,
  encode: encodeEmbeddings,
  stream: refuseStream,
});
