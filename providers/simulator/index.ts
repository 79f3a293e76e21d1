/**
 * The `simulator` provider adapter: a deterministic in-process upstream (no HTTP), so the gateway works without a
 * provider account and tests and benchmarks have a fast upstream. Same engine as the HTTP simulator (`server.ts`).
 * It also makes images (images.ts): for `service:image_generation`, and as chat / Responses image output; and it
 * embeds and reranks (retrieval.ts), for `simulator/embedding` and `simulator/rerank`.
 */
import { type CanonicalResponse, defineProvider, type EventStream, type ProviderCall, ResponseBuilder } from "../../core/sdk/index.ts";
import { mapUpstreamError, refuseNativeServerTools, resolveDeferredTools, translate, warnUnsupported } from "../../core/sdk/provider.ts";
import { planEvents } from "./canonical-events.ts";
import { simulate } from "./engine.ts";
import { simRequestFromCanonical } from "./from-canonical.ts";
import { pictureRequest, simulatorImages, wantsImage, withPicture } from "./images.ts";
import { simulatorOptionsSchema, type SimulatorOptions } from "./options.ts";
import { simulatorEmbed, simulatorRerank } from "./retrieval.ts";
import { sleep } from "./sleep.ts";
import { SIMULATOR_PARAMETERS } from "./parameters.ts";

/**
 * Plans the reply, waits the latency, and fails the way an HTTP upstream with that status would (through the shared
 * error mapping), so fallback tests behave alike in-process and over HTTP.
 */
async function stream(call: ProviderCall): Promise<EventStream> {
  refuseNativeServerTools(call.request.tools, "simulator"); // it has no search of its own: a 400, not a silent drop
  // An upstream's own typed tool (Anthropic's web_search_20250305 when the gateway cannot stand in for it) is not run.
  call.request.tools.forEach((tool, index) => {
    if (tool.kind === "server") warnUnsupported(call, `tools[${index}]`, `Server tool ${tool.type} cannot be run by the simulator and was not sent`);
  });
  const request = simRequestFromCanonical(translate(call, (canonical) => resolveDeferredTools(canonical, "simulator")));
  // The "upstream body" of an in-process upstream is what the engine receives.
  call.onUpstreamBody?.(request);
  const plan = simulate(request, call.target.options as SimulatorOptions);
  await sleep(plan.timing.latencyMs, call.signal);
  if (plan.failure !== undefined) {
    const body = { error: { message: plan.failure.message, type: "simulator_error" } };
    throw mapUpstreamError(plan.failure.status, body, new Headers(), call.helpers.error);
  }
  const events = planEvents(plan, call);
  // Image output (`modalities: ["image", …]`) comes with the text reply; a reply that calls a tool has none.
  return wantsImage(call.request) && plan.toolCall === undefined ? withPicture(events, pictureRequest(call.request, request)) : events;
}

/** Non-streaming reuses the stream; an in-band error is thrown, as the adapter contract asks. */
async function generate(call: ProviderCall): Promise<CanonicalResponse> {
  const builder = new ResponseBuilder();
  for await (const event of await stream(call)) {
    if (event.type === "error") throw event.error;
    builder.add(event);
  }
  return builder.response;
}

/** The adapter module (registered in `providers/index.ts`). */
export default defineProvider({
  id: "simulator",
  description: "Deterministic built-in provider simulator (no network); see providers/simulator/engine.ts",
  optionsSchema: simulatorOptionsSchema,
  supportedParameters: SIMULATOR_PARAMETERS,
  generate,
  stream,
  images: simulatorImages,
  embed: simulatorEmbed,
  rerank: simulatorRerank,
});
