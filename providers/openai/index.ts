/**
 * The `openai` provider adapter: OpenAI chat completions and every server that speaks it. Split like Portkey:
 * `request.ts`, `response.ts`, `stream.ts` (with `chat-calls.ts` joining them); images (`service:image_generation`)
 * in `images.ts`. Named kinds of compatible servers (DeepSeek, Mistral, Groq, …, vLLM, Ollama) with their base URLs
 * and quirks are in `kinds/`, chosen by a provider entry's `kind`.
 */
import { defineProvider } from "../../core/sdk/index.ts";
import { bearerHeaders, openAiEmbeddings } from "../../core/sdk/provider.ts";
import { chatCalls } from "./chat-calls.ts";
import { OPENAI_KINDS, withThinkTags } from "./kinds/index.ts";
import { openAIOptionsSchema } from "./options.ts";
import { OPENAI_PARAMETERS } from "./parameters.ts";

export { chatCompletionsUrl } from "./chat-calls.ts";

/** The adapter module (registered in `providers/index.ts`). */
export default defineProvider({
  id: "openai",
  description: "OpenAI chat completions and OpenAI-compatible servers (kinds: DeepSeek, Mistral, Groq, Cerebras, Together, Fireworks, xAI, Perplexity, OpenRouter, Ollama, vLLM, SGLang, LM Studio, llama.cpp)",
  optionsSchema: openAIOptionsSchema,
  supportedParameters: OPENAI_PARAMETERS,
  ...chatCalls(withThinkTags({})),
  // Every kind keeps it: the compatible servers that embed (Mistral, Together, Fireworks, Ollama, vLLM, …) take the same call.
  embed: (call) => openAiEmbeddings(call, `${call.target.baseUrl.replace(/\/+$/, "")}/embeddings`, bearerHeaders(call)),
  kinds: OPENAI_KINDS,
});
