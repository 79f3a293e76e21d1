/**
 * The fields the official clients read from a model, beside the catalog's own: OpenAI's `Model`
 * (`id`, `object`, `created`, `owned_by`) and Anthropic's `ModelInfo` (`id`, `type`, `display_name`, `created_at`).
 * Both sets are on every model, so `GET /models` and `GET /models/{id}` need not tell the client families apart.
 */
export interface ModelClientFields {
  object: "model";
  owned_by: string;
  type: "model";
  display_name: string;
  created_at: string;
}

/** `created` in Unix seconds (the catalog's `created`); the owner is the id's author, as in `acme/model-a`. */
export function modelClientFields(id: string, name: string, created: number, provider: string): ModelClientFields {
  const slash = id.indexOf("/");
  return {
    object: "model",
    owned_by: slash > 0 ? id.slice(0, slash) : provider,
    type: "model",
    display_name: name,
    created_at: new Date(created * 1000).toISOString(),
  };
}
