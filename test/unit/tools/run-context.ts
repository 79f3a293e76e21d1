/** One hand-built tool run context for tests that call a tool's `run` directly (no gateway, no network by default). */
import { ContainerError } from "../../../core/containers/contract.ts";
import type { ToolRunContext } from "../../../core/registry/tool.ts";
import { fakeHelpers } from "../pipeline/helpers.ts";

export function toolRunContext(overrides: Partial<ToolRunContext> = {}): ToolRunContext {
  const helpers = overrides.helpers ?? fakeHelpers();
  return {
    parameters: {},
    config: {},
    helpers,
    signal: new AbortController().signal,
    fetch: helpers.fetch,
    upstreamFetch: helpers.fetch,
    catalog: { models: () => [], model: () => undefined },
    tools: [],
    reveal: () => undefined,
    previousUses: 0,
    charge: async () => undefined,
    container: () => Promise.reject(new ContainerError("no containers in this test")),
    ...overrides,
  };
}
