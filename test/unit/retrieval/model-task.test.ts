/** core/retrieval/model-task.ts: what a model is for, the 400 of a request for another kind, the start-up check. */
import { describe, expect, test } from "bun:test";
import { defineProvider } from "../../../core/registry/define.ts";
import { ModuleError, Registry } from "../../../core/registry/registry.ts";
import { taskOfModel } from "../../../core/retrieval/model-task.ts";
import { buildCatalog } from "../../../core/routing/catalog.ts";
import { modelConfig, providerConfig } from "../pipeline/helpers.ts";

const chatOnly = defineProvider({ id: "chat-only", description: "no embed", generate: () => Promise.reject(new Error("unused")), stream: () => Promise.reject(new Error("unused")) });

describe("taskOfModel", () => {
  test("embeddings or rerank by output_modalities; anything else, or nothing, is chat", () => {
    expect(taskOfModel({ outputModalities: ["embeddings"] })).toBe("embeddings");
    expect(taskOfModel({ outputModalities: ["rerank"] })).toBe("rerank");
    expect(taskOfModel({ outputModalities: ["text", "image"] })).toBe("chat");
    expect(taskOfModel({})).toBe("chat");
  });
});

describe("start-up", () => {
  test("an embedding model on an adapter without embed() stops start-up naming the entry's field", () => {
    const registry = new Registry();
    registry.register(chatOnly, chatOnly.id);
    const providers = [providerConfig("p", [modelConfig("p/chat"), { ...modelConfig("p/embed"), outputModalities: ["embeddings"] }], "chat-only")];
    expect(() => buildCatalog(providers, registry)).toThrow(ModuleError);
    expect(() => buildCatalog(providers, registry)).toThrow('invalid config field "providers[0].models[1].output_modalities": adapter "chat-only" cannot embed');
    const rerank = [providerConfig("p", [{ ...modelConfig("p/rerank"), outputModalities: ["rerank"] }], "chat-only")];
    expect(() => buildCatalog(rerank, registry)).toThrow("cannot rerank");
  });
});
