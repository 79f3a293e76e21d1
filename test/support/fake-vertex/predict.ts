/**
 * The fake Vertex endpoint's `:predict` for Google's text-embedding models (./server.ts), in Vertex's shape:
 * `{instances: [{content, task_type?, title?}], parameters?: {outputDimensionality?, autoTruncate?}}` →
 * `{predictions: [{embeddings: {values, statistics: {token_count, truncated}}}], metadata: {billableCharacterCount}}`.
 * Each vector is the retrieval fakes' `fakeVector` of the content, cut or padded with zeros to `outputDimensionality`
 * when given; `token_count` is the content's word count. An instance without a `content` string, or more instances
 * than the model takes in one call (`maxInstancesOf`), is Google's 400 INVALID_ARGUMENT; a content with
 * `[vertex:429]` is RESOURCE_EXHAUSTED.
 */
import { fakeVector } from "../fake-retrieval/server.ts";

type Json = Record<string, unknown>;

/** Instances one `:predict` call takes: Vertex's limit for text-embedding-005, one for gemini-embedding-001. */
export function maxInstancesOf(model: string): number {
  return model.startsWith("gemini-embedding") ? 1 : 250;
}

const invalid = (message: string) => ({ status: 400, body: { error: { code: 400, message, status: "INVALID_ARGUMENT" } } });

function sized(values: number[], dimensions: number | undefined): number[] {
  if (dimensions === undefined) return values;
  return Array.from({ length: dimensions }, (_, i) => values[i] ?? 0);
}

/** The reply to a `:predict` body: `{status, body}` for a refusal, else the predictions. */
export function predictReply(model: string, body: Json): { status: number; body: unknown } | Json {
  const instances = body.instances;
  const maxInstances = maxInstancesOf(model);
  if (!Array.isArray(instances) || instances.length === 0) return invalid("instances: must be a non-empty list.");
  if (instances.length > maxInstances) return invalid(`${instances.length} instances are more than the ${maxInstances} one request to ${model} takes.`);
  if (instances.some((i) => typeof (i as Json)?.content !== "string")) return invalid("instances[].content: a string is required.");
  const contents = (instances as Json[]).map((i) => i.content as string);
  if (contents.some((c) => c.includes("[vertex:429]"))) {
    return { status: 429, body: { error: { code: 429, message: "Quota exceeded for aiplatform.googleapis.com/online_prediction_requests_per_base_model.", status: "RESOURCE_EXHAUSTED" } } };
  }
  const parameters = (body.parameters ?? {}) as Json;
  const dimensions = typeof parameters.outputDimensionality === "number" ? parameters.outputDimensionality : undefined;
  return {
    predictions: contents.map((content) => ({
      embeddings: { values: sized(fakeVector(content), dimensions), statistics: { token_count: content.split(/\s+/).filter(Boolean).length, truncated: false } },
    })),
    metadata: { billableCharacterCount: contents.reduce((sum, c) => sum + c.replace(/\s/g, "").length, 0) },
  };
}
