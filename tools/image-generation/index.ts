/**
 * `service:image_generation`: the model describes an image, the
 * gateway makes it with an image model of its catalog (a model whose config lists `image` in `output_modalities`:
 * an OpenAI Images API upstream, a chat model with image output, or the built-in `simulator/image`), billed at that
 * model's `pricing.image` per image.
 *
 * Request entry: `{type: "service:image_generation", parameters?: {model?, size?, aspect_ratio?, quality?,
 * background?, output_format?, output_compression?, moderation?}}`; a model that is unknown or makes no images, or
 * no image model at all, is a 400 naming `<field>.model`. The model calls it with `{prompt}`.
 * Result: `{status: "ok", imageUrl, prompt, revisedPrompt?}`; `imageUrl` is a `data:` URL (or the provider's URL).
 * The client's item shows it whole; the model is told only that an image of that size was delivered
 * (core/pipeline/agent/model-view.ts). A failure (provider error, credit limit) is an error result for the model.
 */
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { ImageGenerationRequest } from "../../core/sdk/index.ts";
import { defineTool } from "../../core/sdk/index.ts";
import type { ToolDeclaration } from "../../core/sdk/index.ts";
import type { CatalogView } from "../../core/sdk/index.ts";
import { argumentsSchema, optionsSchema, parametersSchema, type ImageGenerationOptions, type ImageGenerationParameters } from "./schema.ts";

const argumentsCheck = TypeCompiler.Compile(argumentsSchema);

/** True when some endpoint of the model declares image output. */
function makesImages(catalog: CatalogView, id: string): boolean {
  return catalog.model(id)?.endpoints.some((endpoint) => endpoint.outputModalities?.includes("image") === true) === true;
}

/** Why no image can be made for this declaration, or undefined when one can. */
function declarationProblem(declaration: ToolDeclaration): string | undefined {
  const { catalog } = declaration;
  const model = (declaration.parameters as ImageGenerationParameters).model ?? (declaration.config as ImageGenerationOptions).model;
  if (model === undefined) return catalog.models().some((m) => makesImages(catalog, m.id)) ? undefined : "no image model is configured";
  if (catalog.model(model) === undefined) return `unknown model "${model}"`;
  return makesImages(catalog, model) ? undefined : `model "${model}" does not make images (its output_modalities do not include "image")`;
}

/** The image request of one call: the model's prompt, the client's parameters. */
export function imageRequestOf(prompt: string, parameters: ImageGenerationParameters, config: ImageGenerationOptions): ImageGenerationRequest {
  const request: ImageGenerationRequest = { prompt };
  const model = parameters.model ?? config.model;
  if (model !== undefined) request.model = model;
  if (parameters.size !== undefined) request.size = parameters.size;
  if (parameters.aspect_ratio !== undefined) request.aspectRatio = parameters.aspect_ratio;
  if (parameters.quality !== undefined) request.quality = parameters.quality;
  if (parameters.background !== undefined) request.background = parameters.background;
  if (parameters.output_format !== undefined) request.outputFormat = parameters.output_format;
  if (parameters.output_compression !== undefined) request.outputCompression = parameters.output_compression;
  if (parameters.moderation !== undefined) request.moderation = parameters.moderation;
  return request;
}

export default defineTool({
  id: "service:image_generation",
  description:
    "Generates an image from a text prompt and delivers it to the user. Describe the image fully in `prompt`; the result says whether it was made (you do not see the image itself).",
  parametersSchema,
  optionsSchema,
  argumentsSchema,
  declare(declaration) {
    const problem = declarationProblem(declaration);
    if (problem === undefined) return;
    const field = `${declaration.field}.model`;
    throw declaration.helpers.error("invalid_request", `${field}: ${problem}`, { metadata: { field } });
  },
  async run(args, ctx) {
    const bad = argumentsCheck.Errors(args).First();
    if (bad) throw new Error(`invalid arguments${bad.path ? ` (${bad.path.slice(1)})` : ""}: ${bad.message}`);
    if (!ctx.generateImage) throw new Error("image generation is not available here");
    const prompt = args.prompt as string;
    const image = await ctx.generateImage(imageRequestOf(prompt, ctx.parameters as ImageGenerationParameters, ctx.config as ImageGenerationOptions));
    return image.revisedPrompt === undefined ? { status: "ok", imageUrl: image.url, prompt } : { status: "ok", imageUrl: image.url, prompt, revisedPrompt: image.revisedPrompt };
  },
});
