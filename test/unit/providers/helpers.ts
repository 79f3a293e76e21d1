/** Test doubles for provider adapters: fake ModuleHelpers, a ProviderCall builder, canonical request builder. */
import pino from "pino";
import { GatewayError } from "../../../core/errors.ts";
import type { Kv } from "../../../core/kv/kv.ts";
import type { CanonicalRequest } from "../../../core/model/request.ts";
import type { ModuleHelpers } from "../../../core/registry/helpers.ts";
import { addWarning } from "../../../core/model/warnings.ts";
import type { ProviderCall, UpstreamTarget } from "../../../core/registry/provider.ts";
import { canonicalRequest as baseRequest } from "../pipeline/helpers.ts";

/** Helpers with real GatewayErrors, real fetch, a silent logger, a fixed clock and counting ids. */
export function fakeHelpers(overrides: Partial<ModuleHelpers> = {}): ModuleHelpers {
  let n = 0;
  return {
    error: (type, message, init) => new GatewayError(type, message, init),
    logger: pino({ level: "silent" }),
    fetch: globalThis.fetch,
    // Adapters here never touch kv; a bare object makes any accidental use fail loudly.
    kv: {} as Kv,
    documents: {} as ModuleHelpers["documents"],
    now: () => 1_700_000_000_000,
    id: (prefix) => `${prefix}_${++n}`,
    ...overrides,
  };
}

/** A minimal canonical request (the pipeline tests' one, with this file's model and text); tests override what they exercise. */
export function canonicalRequest(overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return baseRequest({ model: "test-model", messages: [{ role: "user", parts: [{ type: "text", text: "Hello there" }] }], ...overrides });
}

/** An upstream target pointing at `baseUrl`. */
export function target(overrides: Partial<UpstreamTarget> = {}): UpstreamTarget {
  return {
    providerId: "test-provider",
    baseUrl: "http://127.0.0.1:1/v1",
    apiKey: "sk-test",
    upstreamModel: "upstream-model",
    headers: {},
    options: {},
    ...overrides,
  };
}

/** A ProviderCall with fresh helpers and a never-aborted signal unless given. */
export function providerCall(overrides: Partial<ProviderCall> = {}): ProviderCall {
  const call: ProviderCall = {
    request: canonicalRequest(),
    target: target(),
    signal: new AbortController().signal,
    helpers: fakeHelpers(),
    // As an attempt does: what the adapter reports lands on the call's request's list, where tests read it.
    warn: (warning) => addWarning(call.request.warnings, warning),
    ...overrides,
  };
  return call;
}

/** A byte stream delivering `chunks` one by one (strings are UTF-8 encoded). */
export function streamOf(chunks: Array<string | Uint8Array>): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let i = 0;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      const chunk = chunks[i++];
      if (chunk === undefined) controller.close();
      else controller.enqueue(typeof chunk === "string" ? encoder.encode(chunk) : chunk);
    },
  });
}

/** Drains an async iterable into an array. */
export { drain } from "../../support/iterables.ts";

/** Waits until `predicate` holds, polling every 5 ms, failing after `ms`. */
export async function until(predicate: () => boolean, ms = 2000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error("condition not met in time");
    await Bun.sleep(5);
  }
}
