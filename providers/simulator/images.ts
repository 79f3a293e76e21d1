/**
 * The simulator as an image model, for `service:image_generation` (`images`) and for chat / Responses image output
 * (`modalities: ["image", …]`): a small deterministic PNG drawn from the prompt (picture.ts). Latency and failures
 * follow the same options and `[sim …]` directives as its text replies, so failure paths can be tested too.
 */
import type { CanonicalRequest, GeneratedImage, ImageCall, ImageRequest, StreamEvent } from "../../core/sdk/index.ts";
import { dataUrl, mapUpstreamError } from "../../core/sdk/provider.ts";
import { simulate, type SimRequest } from "./engine.ts";
import type { SimulatorOptions } from "./options.ts";
import { drawPicture } from "./picture.ts";
import { sleep } from "./sleep.ts";

/** The adapter's `images`: one PNG for the prompt (other output formats are not simulated: the media type says so). */
export async function simulatorImages(call: ImageCall): Promise<GeneratedImage[]> {
  call.onUpstreamBody?.(call.request);
  const plan = simulate({ messages: [{ role: "user", texts: [call.request.prompt] }], tools: [] }, call.target.options as SimulatorOptions);
  await sleep(plan.timing.latencyMs, call.signal);
  if (plan.failure !== undefined) {
    const body = { error: { message: plan.failure.message, type: "simulator_error" } };
    throw mapUpstreamError(plan.failure.status, body, new Headers(), call.helpers.error);
  }
  return [{ url: dataUrl("image/png", drawPicture(call.request)), mediaType: "image/png" }];
}

/** True when a chat / Responses request asks for image output. */
export function wantsImage(request: CanonicalRequest): boolean {
  return request.modalities?.includes("image") === true;
}

/** The picture a chat request asks for: the last user message is the prompt, `image_config` the shape. */
export function pictureRequest(request: CanonicalRequest, sim: SimRequest): ImageRequest {
  const user = sim.messages.findLast((message) => message.role === "user");
  const config = request.passthrough?.image_config;
  const aspect = typeof config === "object" && config !== null ? (config as Record<string, unknown>).aspect_ratio : undefined;
  const picture: ImageRequest = { prompt: user?.texts.join("\n") ?? "" };
  if (typeof aspect === "string") picture.aspectRatio = aspect as ImageRequest["aspectRatio"];
  return picture;
}

/** `events` with the picture added after the reply's content (before its usage), unless the reply failed. */
export async function* withPicture(events: AsyncIterable<StreamEvent>, picture: ImageRequest): AsyncGenerator<StreamEvent, void, undefined> {
  let added = false;
  for await (const event of events) {
    // After the content: before the final usage (not the prompt count reported up front) or the finish.
    if (!added && ((event.type === "usage" && event.usage.output.total > 0) || event.type === "finish")) {
      added = true;
      yield { type: "image", id: "image_0", url: dataUrl("image/png", drawPicture(picture)), mediaType: "image/png" };
    }
    yield event;
  }
}
