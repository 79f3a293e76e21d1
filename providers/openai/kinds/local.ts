/**
 * Local model servers: Ollama, vLLM, SGLang, LM Studio and llama.cpp's `llama-server`. No key is needed (none is
 * sent unless configured); the served models are discovered from `GET {base_url}/models` (README "Local model
 * servers"); reasoning comes as `reasoning_content` (vLLM, SGLang, llama.cpp) or `reasoning` (Ollama, LM Studio),
 * read by the translation, or inline as `<think>` blocks for models without a reasoning parser (option
 * `think_tags`); streamed usage is asked for with `stream_options` (the translation always does); every one of them
 * knows `max_tokens`, not all `max_completion_tokens`.
 */
import { type KindSpec, useMaxTokens } from "./shared.ts";

function local(description: string, defaultBaseUrl: string): KindSpec {
  return {
    description,
    defaultBaseUrl,
    requiresKey: false,
    discovers: true,
    quirks: { request: (body, call) => useMaxTokens(body, call) },
  };
}

export const ollama = local("Ollama", "http://127.0.0.1:11434/v1");
export const vllm = local("vLLM", "http://127.0.0.1:8000/v1");
export const sglang = local("SGLang", "http://127.0.0.1:30000/v1");
export const lmstudio = local("LM Studio", "http://127.0.0.1:1234/v1");
export const llamacpp = local("llama.cpp server", "http://127.0.0.1:8080/v1");
