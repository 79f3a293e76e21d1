/**
 * `POST /rerank` body (the peer SDK's `rerank.rerank`; Cohere's, Jina's and Voyage's rerank requests share it):
 * a query, the documents to score (strings, or `{text}` objects), how many results to return.
 */
import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Open } from "../shared/schema.ts";

const DocumentSchema = Type.Union([
  Type.String(),
  Type.Object({ text: Type.Optional(Type.String()), image: Type.Optional(Type.String()) }, Open),
]);

export const RerankRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, description: "A rerank model (output_modalities rerank)" }),
    models: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: "Fallback models, tried in order after `model`" })),
    query: Type.String({ description: "What the documents are scored against; not empty" }),
    documents: Type.Array(DocumentSchema, { description: "The documents to score: strings or {text} objects; not empty" }),
    top_n: Type.Optional(Type.Integer({ minimum: 1 })),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    provider: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    session_id: Type.Optional(Type.String({ maxLength: 256 })),
    trace: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  Open,
);

export type RerankRequestBody = Static<typeof RerankRequestSchema>;

export const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(RerankRequestSchema.properties));
