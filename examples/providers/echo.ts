/**
 * An example third-party provider adapter, loaded from the config's `extensions` by path and used by a provider
 * entry with `"adapter": "echo"`. It answers with the last user message (no network), calls a forced tool with
 * the message as its argument, and fails like an unavailable upstream when asked to ("fail" in the prompt). It imports only
 * the public SDK entry, and passes the adapter conformance kit (test/conformance/kit.test.ts).
 */
import { collect, defineProvider, type CanonicalRequest, type EventStream, type ProviderCall } from "inference-gateway/sdk";

function lastUserText(request: CanonicalRequest): string {
  const last = request.messages.findLast((m) => m.role === "user");
  return last?.parts.map((p) => (p.type === "text" ? p.text : "")).join("") ?? "";
}

function wordsOf(text: string): number {
  return text.split(/\s+/).filter(Boolean).length;
}

async function* events(call: ProviderCall, text: string): EventStream {
  const request = call.request;
  yield { type: "start", id: call.helpers.id("echo-"), model: call.target.upstreamModel, provider: call.target.providerId, created: Math.floor(call.helpers.now() / 1000) };
  const choice = request.toolChoice;
  if (choice?.type === "tool") {
    const id = call.helpers.id("call_");
    yield { type: "tool-call-start", id, name: choice.name };
    yield { type: "tool-call-delta", id, delta: JSON.stringify({ echo: text }) };
    yield { type: "tool-call-end", id };
    yield { type: "finish", finish: { reason: "tool_calls" } };
  } else {
    yield { type: "text-start", id: "t0" };
    for (const word of text.split(/(\s+)/).filter(Boolean)) {
      if (call.signal.aborted) throw call.signal.reason;
      yield { type: "text-delta", id: "t0", delta: word };
    }
    yield { type: "text-end", id: "t0" };
    yield { type: "finish", finish: { reason: "stop" } };
  }
  yield { type: "usage", usage: { input: { total: wordsOf(lastUserText(request)), cacheRead: 0, cacheWrite: 0 }, output: { total: wordsOf(text), reasoning: 0 } } };
}

async function stream(call: ProviderCall): Promise<EventStream> {
  const text = lastUserText(call.request);
  if (/\bfail\b/.test(text)) throw call.helpers.error("provider_unavailable", "echo: asked to fail", { status: 502, retryable: true });
  return events(call, text);
}

export default defineProvider({
  id: "echo",
  description: "Echoes the last user message (example third-party adapter).",
  stream,
  async generate(call) {
    return collect(await stream(call));
  },
});
