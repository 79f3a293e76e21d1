/**
 * The preset vocabulary (spec "Preset": `config` holds the persisted request fields).
 *
 * A config is stored in ONE vocabulary — the chat-completions field names, since chat is the spec's preset-creation
 * body and the batch result format — so a preset made from a Messages body works in a Responses request and back.
 * Fields with the same name and meaning in a format are copied verbatim (the lists below); the few concepts the
 * formats spell differently (max tokens, stop, output format, tools, tool choice, fallbacks) are translated in
 * `translate.ts`. Fields only one format has (`thinking`, `include`, …) are kept under their own name and applied
 * only to formats that have them. Per-request fields (`messages`, `input`, `stream`, `prompt`, `metadata`, `user`,
 * `session_id`, `trace`, `debug`, …) are never stored.
 */
import type { InboundFormat } from "../model/request.ts";

/** Body fields copied verbatim into and out of the config, per format. */
export const VERBATIM: Readonly<Record<InboundFormat, readonly string[]>> = {
  chat: [
    "model",
    "models",
    "temperature",
    "top_p",
    "top_k",
    "min_p",
    "top_a",
    "frequency_penalty",
    "presence_penalty",
    "repetition_penalty",
    "seed",
    "logit_bias",
    "logprobs",
    "top_logprobs",
    "parallel_tool_calls",
    "provider",
    "plugins",
    "route",
    "reasoning",
    "reasoning_effort",
    "verbosity",
    "service_tier",
    "stop_server_tools_when",
    "cache_control",
    "prompt_cache_options",
    "image_config",
    "modalities",
    // Chat is the vocabulary, so its spellings of the translated concepts are stored as they are.
    "max_tokens",
    "max_completion_tokens",
    "stop",
    "response_format",
    "tools",
    "tool_choice",
  ],
  responses: [
    "model",
    "models",
    "temperature",
    "top_p",
    "top_k",
    "frequency_penalty",
    "presence_penalty",
    "top_logprobs",
    "parallel_tool_calls",
    "provider",
    "plugins",
    "route",
    "reasoning",
    "service_tier",
    "stop_server_tools_when",
    "cache_control",
    "prompt_cache_options",
    "image_config",
    "modalities",
    "max_tool_calls",
    "include",
    "truncation",
  ],
  messages: [
    "model",
    "models",
    "temperature",
    "top_p",
    "top_k",
    "provider",
    "plugins",
    "route",
    "speed",
    "stop_server_tools_when",
    "cache_control",
    "thinking",
  ],
};

/**
 * Config-only keys (response caching) kept whatever the source format: the peer's two and our
 * `cache: {enabled, ttl_seconds}` (README "Response cache"). Never merged into a request body.
 */
export const CONFIG_ONLY: readonly string[] = ["cache_enabled", "cache_ttl_seconds", "cache"];

/**
 * Fields of one format that express one concept. When a request sets any of them, the preset's value of the whole
 * concept is dropped, so a shallow merge never produces two conflicting spellings (e.g. the preset's `max_tokens`
 * beside the request's `max_completion_tokens`, or `reasoning.effort` beside a differing `reasoning_effort`).
 */
export const CONCEPTS: Readonly<Record<InboundFormat, ReadonlyArray<readonly string[]>>> = {
  chat: [
    ["max_tokens", "max_completion_tokens"],
    ["reasoning", "reasoning_effort"],
  ],
  responses: [],
  messages: [["models", "fallbacks"]],
};
