/** The rerank wire format, `POST /rerank` (README "Embeddings and rerank"). */
import type { WireFormat } from "../format.ts";
import { refuseStream } from "../shared/no-stream.ts";
import { decodeRerank } from "./decode.ts";
import { encodeRerank } from "./encode.ts";
import { RerankRequestSchema } from "./schema.ts";

export const rerankFormat: WireFormat = Object.freeze({
  id: "rerank",
  schema: RerankRequestSchema,
  decode: decodeRerank,
  encode: encodeRerank,
  stream: refuseStream,
});
