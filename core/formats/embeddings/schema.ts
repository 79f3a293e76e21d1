/**
 * `POST /embeddings` body (OpenAI's embeddings request, with the gateway's `provider` preferences and fallback
 * `models`; the peer SDK's `embeddings.generate` sends the same). `input` is checked by the decoder, which names the
 * exact element at fault (a schema union would only say "expected union value").
 */
import { Type, type Static } from "@sinclair/typebox";
import { Nullable, Open } from "../shared/schema.ts";

export const EmbeddingsRequestSchema = Type.Object(
  {
    model: Type.String({ minLength: 1, description: "An embedding model (output_modalities embeddings): GET /embeddings/models" }),
    models: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { description: "Fallback models, tried in order after `model`" })),
    input: Type.Unknown({
      description: "A string, an array of strings, an array of token ids, or an array of token-id arrays; none empty",
    }),
    // Far above any upstream's (OpenAI 3,072; Gemini 3,072; Voyage 2,048): only nonsense is refused here.
    dimensions: Type.Optional(Type.Integer({ minimum: 1, maximum: 16_384 })),
    encoding_format: Type.Optional(Type.Union([Type.Literal("float"), Type.Literal("base64")])),
    input_type: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    user: Type.Optional(Type.String({ maxLength: 256 })),
    provider: Type.Optional(Nullable(Type.Record(Type.String(), Type.Unknown()))),
    session_id: Type.Optional(Type.String({ maxLength: 256 })),
    trace: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  Open,
);

export type EmbeddingsRequest = Static<typeof EmbeddingsRequestSchema>;

export const KNOWN_FIELDS: ReadonlySet<string> = new Set(Object.keys(EmbeddingsRequestSchema.properties));
