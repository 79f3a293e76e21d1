/**
 * `supported_parameters` of an endpoint as the catalog shows it: what its adapter sends upstream
 * (`ProviderAdapter.supportedParameters`), narrowed by the model entry's own `supported_parameters` when the config
 * declares them (the operator knows what the upstream model accepts). A model's list is the union over its endpoints
 * (routing can pick any of them). Order follows `PARAMETER_ORDER`, so listings are stable.
 */
import type { Endpoint } from "./catalog.ts";

/** Every name `sentParameters` (./parameters.ts) may report, in the order listings use. */
export const PARAMETER_ORDER: readonly string[] = [
  "tools",
  "tool_choice",
  "parallel_tool_calls",
  "max_tokens",
  "temperature",
  "top_p",
  "top_k",
  "min_p",
  "top_a",
  "frequency_penalty",
  "presence_penalty",
  "repetition_penalty",
  "seed",
  "stop",
  "logprobs",
  "top_logprobs",
  "logit_bias",
  "response_format",
  "structured_outputs",
  "verbosity",
  "reasoning",
];

const cache = new WeakMap<Endpoint, readonly string[]>();

/** The parameters one endpoint honours (computed once per endpoint: the catalog is fixed after start-up). */
export function endpointParameters(endpoint: Endpoint): readonly string[] {
  let list = cache.get(endpoint);
  if (!list) {
    const adapter = endpoint.adapter.supportedParameters;
    const declared = endpoint.model.supportedParameters;
    const keep = (name: string) => (adapter === undefined || adapter.includes(name)) && (declared === undefined || declared.includes(name));
    // An adapter that declares nothing: only the config's list is known.
    list = Object.freeze(adapter === undefined && declared === undefined ? [] : ordered([...(adapter ?? []), ...(declared ?? [])].filter(keep)));
    cache.set(endpoint, list);
  }
  return list;
}

/** The union over a model's endpoints. */
export function modelParameters(endpoints: readonly Endpoint[]): string[] {
  return ordered(endpoints.flatMap((e) => endpointParameters(e)));
}

/** Known names in `PARAMETER_ORDER`, then any others (a config may declare names we do not know) alphabetically. */
function ordered(names: readonly string[]): string[] {
  const set = new Set(names);
  const known = PARAMETER_ORDER.filter((n) => set.has(n));
  const others = [...set].filter((n) => !PARAMETER_ORDER.includes(n)).sort();
  return [...known, ...others];
}
