/** Chat completion body → canonical response (Portkey-style `response` transform). */
import type { CanonicalResponse, Part, ProviderCall } from "../../core/sdk/index.ts";
import { emptyUsage, mapUpstreamError, mediaTypeOf, unexpectedBody } from "../../core/sdk/provider.ts";
import { audioPartOf } from "./audio.ts";
import { mapFinish } from "./finish.ts";
import { reasoningParts } from "./reasoning.ts";
import { mapUsage } from "./usage.ts";
import type { ChatCompletion } from "./wire.ts";

/**
 * Parts in canonical order: reasoning, text, images, audio, tool calls, refusal. A 200 body carrying `error` (OpenRouter does this
 * when the provider failed after accepting) is thrown as the mapped error, like a non-2xx reply.
 */
export function fromChatCompletion(body: ChatCompletion, call: ProviderCall): CanonicalResponse {
  if (body.error !== undefined) {
    const status = typeof body.error.code === "number" ? body.error.code : 502;
    throw mapUpstreamError(status, body, new Headers(), call.helpers.error);
  }
  // Only choice 0: the adapter never asks for `n` > 1. A completion without it is no completion at all.
  const choice = Array.isArray(body.choices) ? body.choices.find((c) => typeof c === "object" && c !== null && (c.index ?? 0) === 0) : undefined;
  if (choice === undefined) throw unexpectedBody(call, "no choices[0]");
  const message = choice?.message ?? {};
  const parts: Part[] = [...reasoningParts(message)];
  if (typeof message.content === "string" && message.content !== "") {
    parts.push(message.annotations?.length ? { type: "text", text: message.content, annotations: message.annotations } : { type: "text", text: message.content });
  }
  // Generated images (OpenRouter-style image output, `message.images[].image_url.url`) follow the text.
  for (const image of message.images ?? []) {
    const url = image?.image_url?.url;
    if (typeof url !== "string" || url === "") continue;
    const mediaType = mediaTypeOf(url);
    parts.push(mediaType === undefined ? { type: "image", url } : { type: "image", url, mediaType });
  }
  const audio = audioPartOf(message.audio);
  if (audio !== undefined) parts.push(audio);
  for (const wireCall of message.tool_calls ?? []) {
    parts.push({
      type: "tool-call",
      id: wireCall.id ?? call.helpers.id("call"),
      name: wireCall.function?.name ?? "",
      arguments: wireCall.function?.arguments ?? "",
    });
  }
  if (typeof message.refusal === "string" && message.refusal !== "") parts.push({ type: "refusal", text: message.refusal });
  const response: CanonicalResponse = {
    id: body.id ?? "",
    model: body.model || call.target.upstreamModel,
    provider: call.target.providerId,
    created: body.created || Math.floor(call.helpers.now() / 1000),
    parts,
    finish: mapFinish(choice?.finish_reason, choice?.native_finish_reason),
    usage: body.usage ? mapUsage(body.usage) : emptyUsage(),
    warnings: [],
  };
  if (body.system_fingerprint !== undefined) response.systemFingerprint = body.system_fingerprint;
  if (typeof body.service_tier === "string") response.serviceTier = body.service_tier;
  const logprobs = choice?.logprobs?.content;
  if (Array.isArray(logprobs)) response.logprobs = logprobs;
  return response;
}
