/**
 * What a configured model is for (README "Embeddings and rerank"): `output_modalities: ["embeddings"]` makes it an
 * embedding model, `["rerank"]` a rerank model, anything else (or nothing) a chat model. A request for one kind naming
 * a model of another is a 400 that says which route the model belongs to; a retrieval model on an adapter that cannot
 * serve it stops start-up.
 */
import type { ModelConfig } from "../config/types.ts";
import { GatewayError } from "../errors.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { RegisteredProvider } from "../registry/define.ts";
import type { CatalogModel } from "../routing/catalog.ts";

export type ModelTask = "chat" | "embeddings" | "rerank";

/** The task of one model entry. */
export function taskOfModel(model: Pick<ModelConfig, "outputModalities">): ModelTask {
  const outputs = model.outputModalities;
  if (outputs === undefined) return "chat";
  return outputs.includes("embeddings") ? "embeddings" : outputs.includes("rerank") ? "rerank" : "chat";
}

/** The task of a served model: retrieval when any endpoint's entry says so (one model id is one kind of model). */
export function taskOfCatalogModel(model: CatalogModel): ModelTask {
  for (const endpoint of model.endpoints) {
    const task = taskOfModel(endpoint.model);
    if (task !== "chat") return task;
  }
  return "chat";
}

const ROUTE: Record<ModelTask, string> = { chat: "a chat route (/chat/completions, /responses, /messages)", embeddings: "POST /embeddings", rerank: "POST /rerank" };
const NOUN: Record<ModelTask, string> = { chat: "a chat model", embeddings: "an embedding model", rerank: "a rerank model" };

/** Throws the 400 for the first requested model that is of another kind than the request (a chat request for an embedding model). */
export function checkModelTasks(request: CanonicalRequest, models: readonly CatalogModel[]): void {
  const wanted: ModelTask = request.task?.kind ?? "chat";
  for (const model of models) {
    const task = taskOfCatalogModel(model);
    if (task === wanted) continue;
    throw new GatewayError("invalid_request", `Model "${model.id}" is ${NOUN[task]}: send it to ${ROUTE[task]}, not to ${ROUTE[wanted]}`, {
      metadata: { param: "model", model_kind: task },
    });
  }
}

/** Start-up: a retrieval model entry needs an adapter that can serve it (`embed` or `rerank`). */
export function retrievalSupportProblem(adapter: RegisteredProvider, model: ModelConfig): string | undefined {
  const task = taskOfModel(model);
  if (task === "embeddings" && adapter.embed === undefined) return `adapter "${adapter.id}" cannot embed (it has no embed())`;
  if (task === "rerank" && adapter.rerank === undefined) return `adapter "${adapter.id}" cannot rerank (it has no rerank())`;
  return undefined;
}
