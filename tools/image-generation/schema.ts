/**
 * The schemas of `service:image_generation`: the request entry's `parameters` (how the image is
 * made; unknown keys and values outside the lists are 400s naming the field), the operator's settings, and the
 * arguments the model calls it with (only the prompt: the client decides the rest).
 */
import { type Static, Type } from "@sinclair/typebox";
import { ASPECT_RATIOS, IMAGE_BACKGROUNDS, IMAGE_FORMATS, IMAGE_MODERATIONS, IMAGE_QUALITIES, IMAGE_SIZES } from "../../core/sdk/index.ts";

const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

/** Longest prompt accepted (OpenAI's image models take up to 32 000 characters). */
export const MAX_PROMPT_CHARS = 32_000;

export const parametersSchema = Type.Object(
  {
    /** An image model of this gateway; default: `tools.image_generation.model`, else the first image model. */
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    size: Type.Optional(literals(IMAGE_SIZES)),
    aspect_ratio: Type.Optional(literals(ASPECT_RATIOS)),
    quality: Type.Optional(literals(IMAGE_QUALITIES)),
    background: Type.Optional(literals(IMAGE_BACKGROUNDS)),
    output_format: Type.Optional(literals(IMAGE_FORMATS)),
    output_compression: Type.Optional(Type.Integer({ minimum: 0, maximum: 100 })),
    moderation: Type.Optional(literals(IMAGE_MODERATIONS)),
  },
  { additionalProperties: false },
);
export type ImageGenerationParameters = Static<typeof parametersSchema>;

/** The operator's `tools.image_generation` settings. */
export const optionsSchema = Type.Object(
  {
    /** The image model used when a request names none (checked when a request declares the tool). */
    model: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);
export type ImageGenerationOptions = Static<typeof optionsSchema>;

export const argumentsSchema = Type.Object(
  {
    prompt: Type.String({
      minLength: 1,
      maxLength: MAX_PROMPT_CHARS,
      description: "What to draw: subject, setting, style, composition, colours, any text to show. Be specific.",
    }),
  },
  { additionalProperties: false },
);
