/** Adapter options of `openai` (provider config `options`), validated at start-up against `optionsSchema`. */
import { Type, type Static } from "@sinclair/typebox";

/** TypeBox schema of the adapter options. */
export const openAIOptionsSchema = Type.Object(
  {
    /** Older OpenAI-compatible servers only know `max_tokens`; OpenAI's reasoning models only `max_completion_tokens`. */
    max_tokens_field: Type.Optional(Type.Union([Type.Literal("max_completion_tokens"), Type.Literal("max_tokens")])),
    /**
     * How this upstream makes images for `service:image_generation`: `images` = OpenAI's `POST /images/generations`
     * (default); `chat` = a chat completion with `modalities: ["image", "text"]` (OpenRouter-style servers that only
     * return images in `message.images`).
     */
    image_api: Type.Optional(Type.Union([Type.Literal("images"), Type.Literal("chat")])),
    /**
     * The model writes its reasoning inline as `<think>…</think>` in the answer text (DeepSeek-R1 distills, QwQ and
     * Qwen3 on servers without a reasoning parser): such blocks become reasoning parts, streamed and collected.
     */
    think_tags: Type.Optional(Type.Boolean()),
    /**
     * Kind `openrouter`: provider-routing preferences sent with every request (`order`, `only`, `ignore`, `sort`,
     * `data_collection`, …, OpenRouter's `provider` object); a request's own preferences win field by field.
     */
    provider: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  { additionalProperties: false },
);

/** The validated options. */
export type OpenAIOptions = Static<typeof openAIOptionsSchema>;

/** Reads the options from a target's already-validated record, falling back to defaults. */
export function readOpenAIOptions(options: Record<string, unknown>): Required<Pick<OpenAIOptions, "max_tokens_field" | "image_api">> {
  return {
    max_tokens_field: options.max_tokens_field === "max_tokens" ? "max_tokens" : "max_completion_tokens",
    image_api: options.image_api === "chat" ? "chat" : "images",
  };
}
