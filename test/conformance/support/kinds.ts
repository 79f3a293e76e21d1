/**
 * The named kinds of the `openai` adapter in the conformance suite: one gateway with one provider per kind, each
 * pointing at its path of ONE behavioural fake (test/support/fake-compatible/), which refuses what that server
 * refuses and answers in its dialect. Cloud kinds have a configured model `lt/<kind>`; local servers list theirs and
 * the gateway discovers them (`lt-<kind>/<served name>`).
 */
import type { ConfigFile } from "../../../core/config/file-schema.ts";
import { type KindName, KIND_NAMES, keyOf, LOCAL_KINDS } from "../../support/fake-compatible/dialects.ts";
import { type FakeCompatible, startFakeCompatible } from "../../support/fake-compatible/server.ts";
import { startTestGateway, type TestGateway } from "../../support/gateway.ts";

/** The model each kind's server serves (the names those servers really use). */
export const SERVED: Record<KindName, string> = {
  deepseek: "deepseek-reasoner",
  mistral: "magistral-medium-latest",
  groq: "qwen/qwen3-32b",
  cerebras: "gpt-oss-120b",
  together: "deepseek-ai/DeepSeek-R1",
  fireworks: "accounts/fireworks/models/deepseek-r1",
  xai: "grok-3-mini",
  perplexity: "sonar-reasoning-pro",
  openrouter: "anthropic/claude-sonnet-4.5",
  ollama: "qwen3:8b",
  vllm: "Qwen/Qwen3-8B",
  sglang: "Qwen/Qwen3-32B",
  lmstudio: "qwen/qwen3-8b",
  llamacpp: "qwen3-8b-q4_k_m.gguf",
};

/** Provider id per kind. */
export const providerOf = (kind: KindName): string => `lt-${kind}`;

/** The model id clients send: configured for cloud kinds, discovered for local servers. */
export const modelOf = (kind: KindName): string => (LOCAL_KINDS.includes(kind) ? `${providerOf(kind)}/${SERVED[kind]}` : `lt/${kind}`);

/** USD per token of the configured models. */
export const KIND_PRICING = { prompt: 0.000001, completion: 0.000002 };

/** Kinds whose models write reasoning inline as `<think>` (the provider entries say so with `think_tags`). */
export const THINK_TAG_KINDS: readonly KindName[] = ["groq", "perplexity", "ollama", "lmstudio", "llamacpp"];

/** What each local server lists on `GET /models`, as it writes it. */
export function servedList(kind: KindName): Array<Record<string, unknown>> {
  const id = SERVED[kind];
  switch (kind) {
    case "vllm":
      return [{ id, object: "model", created: 1_750_000_000, owned_by: "vllm", root: id, parent: null, max_model_len: 32768, permission: [] }];
    case "sglang":
      return [{ id, object: "model", created: 1_750_000_000, owned_by: "sglang", root: id, max_model_len: 131072 }];
    case "llamacpp":
      return [{ id, object: "model", created: 1_750_000_000, owned_by: "llamacpp", meta: { vocab_type: 2, n_vocab: 151936, n_ctx_train: 40960, n_embd: 4096 } }];
    default:
      return [{ id, object: "model", created: 1_750_000_000, owned_by: "library" }];
  }
}

/** The provider entry of one kind, as an operator writes it (only `base_url` points at the fake). */
export function providerEntry(fake: FakeCompatible, kind: KindName): NonNullable<ConfigFile["providers"]>[number] {
  const local = LOCAL_KINDS.includes(kind);
  return {
    id: providerOf(kind),
    adapter: "openai",
    kind,
    base_url: fake.baseUrl(kind),
    ...(local ? {} : { api_key: keyOf(kind), models: [{ id: modelOf(kind), upstream_model: SERVED[kind], pricing: KIND_PRICING, context_length: 128000 }] }),
    ...(THINK_TAG_KINDS.includes(kind) ? { options: { think_tags: true } } : {}),
  };
}

export interface KindsRig {
  gw: TestGateway;
  fake: FakeCompatible;
  close(): Promise<void>;
}

/** The fake (local servers listing their models) and a gateway with every kind, no retries, a breaker that never opens. */
export async function startKinds(kinds: readonly KindName[] = KIND_NAMES): Promise<KindsRig> {
  const fake = await startFakeCompatible();
  for (const kind of LOCAL_KINDS) fake.models[kind] = servedList(kind);
  const file: ConfigFile = { providers: kinds.map((kind) => providerEntry(fake, kind)) };
  Object.assign(file, { routing: { max_retries: 0, breaker: { failure_threshold: 1_000_000 } } });
  const gw = await startTestGateway({ file });
  return {
    gw,
    fake,
    async close() {
      await gw.close();
      await fake.stop();
    },
  };
}

/** How each inbound format asks for reasoning (so kinds that switch it on do). */
export const ASK_REASONING: Record<"chat" | "responses" | "messages", Record<string, unknown>> = {
  chat: { reasoning_effort: "medium" },
  responses: { reasoning: { effort: "medium" } },
  messages: { thinking: { type: "enabled", budget_tokens: 1024 }, max_tokens: 4096 },
};
