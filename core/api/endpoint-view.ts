/**
 * One endpoint (a model at a provider) as the peer's `PublicEndpoint` (`GET /models/{author}/{slug}/endpoints`):
 * the config's limits and prices, the parameters its adapter honours, and what this process measured of it
 * (latency in seconds to first output and throughput in tokens per second over the last `routing.stats.samples`
 * calls — not a 30-minute window; null before any call). Our own fields (`adapter`, `health`, `tiers`,
 * `simulated`) come along. README "Models" lists the constant fields.
 */
import type { Endpoint } from "../routing/catalog.ts";
import { endpointView } from "../routing/catalog-view.ts";
import { endpointParameters } from "../routing/endpoint-parameters.ts";
import type { RoutingRuntime } from "../routing/runtime.ts";
import { pricingView } from "./pricing-view.ts";

export function publicEndpoint(endpoint: Endpoint, routing: RoutingRuntime): Record<string, unknown> {
  const { model, provider } = endpoint;
  const measured = endpointView(endpoint, routing);
  const parameters = endpointParameters(endpoint);
  // Every built-in adapter maps auto, none, required and a named function alike (or sends no tool_choice at all).
  const choice = parameters.includes("tool_choice");
  const modelName = model.name ?? model.id;
  return {
    name: `${provider.id}: ${modelName}`,
    model_id: model.id,
    model_name: modelName,
    provider_name: provider.id,
    tag: model.quantization ? `${provider.id}/${model.quantization}` : provider.id,
    // Required integer: 0 when the config declares no context length.
    context_length: model.contextLength ?? 0,
    max_prompt_tokens: model.contextLength ?? null,
    max_completion_tokens: model.maxOutputTokens ?? null,
    pricing: pricingView(model.pricing),
    quantization: model.quantization ?? null,
    supported_parameters: [...parameters],
    supports_tool_choice: { auto: choice, none: choice, required: choice, function: choice },
    supports_implicit_caching: false,
    supports_voice_cloning: false,
    latency_last_30m: measured.latency ?? null,
    throughput_last_30m: measured.throughput ?? null,
    uptime_last_5m: null,
    uptime_last_30m: null,
    uptime_last_1d: null,
    adapter: provider.adapter,
    region: provider.region ?? null,
    health: measured.health,
    tiers: model.tiers ?? null,
    simulated: provider.simulated,
  };
}
