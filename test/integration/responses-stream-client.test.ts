/**
 * POST /responses with `stream: true` through the official `openai` client over a loopback port, on both adapters:
 * `stream: true` iteration and the `responses.stream()` helper with `finalResponse()`, a mid-stream failure as the
 * client sees it, a failure before the stream started (a normal error status and envelope), service_metadata on
 * `response.completed`, and keep-alive comments (`server.keep_alive_ms` 100) on a slow stream.
 */
import { describe, expect, test } from "bun:test";
import OpenAI from "openai";
import {
  CHAT_MODEL as CHAT,
  NATIVE_MODEL as NATIVE,
  expectServiceMetadata,
  useResponsesRig,
} from "../support/fake-responses-upstream.ts";

type Json = Record<string, any>;

const rig = useResponsesRig({ keepAliveMs: 100 });

/** SSE frames of a raw stream request: comments, events (JSON) and the `[DONE]` sentinel, in order. */
type Frame = { kind: "comment"; text: string } | { kind: "done" } | { kind: "event"; data: Json };

async function rawFrames(body: Json, headers: Record<string, string> = {}): Promise<Frame[]> {
  const res = await rig.gw.request("/responses", { method: "POST", headers, json: { stream: true, ...body } });
  expect(res.status).toBe(200);
  return (await res.text())
    .split("\n\n")
    .filter((block) => block !== "")
    .map((block): Frame => {
      if (block.startsWith(":")) return { kind: "comment", text: block };
      const data = block.split("\n").find((line) => line.startsWith("data: "))!.slice(6);
      return data === "[DONE]" ? { kind: "done" } : { kind: "event", data: JSON.parse(data) as Json };
    });
}

const eventsOf = (frames: Frame[]): Json[] => frames.flatMap((f) => (f.kind === "event" ? [f.data] : []));
/** The one terminal event, checked to be followed only by `[DONE]`. */
function terminalOf(frames: Frame[], type: string): Json {
  expect(frames.at(-1)).toEqual({ kind: "done" });
  const last = frames.at(-2)!;
  expect(last.kind).toBe("event");
  const event = (last as Extract<Frame, { kind: "event" }>).data;
  expect(event.type).toBe(type);
  return event;
}

describe("the official client", () => {
  for (const [label, model, input] of [
    ["openai adapter", CHAT, "Stream [sim tokens=5]"],
    ["openai-responses adapter", NATIVE, "Stream [fake text]"],
  ] as const) {
    test(`${label}: stream: true iteration`, async () => {
      const stream = await rig.client.responses.create({ model, input, stream: true });
      const seen: string[] = [];
      let text = "";
      let completed: OpenAI.Responses.Response | undefined;
      for await (const event of stream) {
        seen.push(event.type);
        if (event.type === "response.output_text.delta") text += event.delta;
        if (event.type === "response.completed") completed = event.response;
      }
      expect(seen.slice(0, 4)).toEqual(["response.created", "response.in_progress", "response.output_item.added", "response.content_part.added"]);
      expect(seen.at(-1)).toBe("response.completed");
      expect(text.length).toBeGreaterThan(0);
      const message = completed!.output[0] as OpenAI.Responses.ResponseOutputMessage;
      expect(message.content).toEqual([{ type: "output_text", text, annotations: [] }]);
      expect((completed!.usage as unknown as Json).cost).toBeGreaterThan(0);
    });

    test(`${label}: responses.stream() helper and finalResponse()`, async () => {
      const stream = rig.client.responses.stream({ model, input });
      let deltas = "";
      stream.on("response.output_text.delta", (event) => {
        deltas += event.delta;
      });
      const final = await stream.finalResponse();
      expect(final.status).toBe("completed");
      expect(final.output_text).toBe(deltas);
      expect(final.usage!.total_tokens).toBeGreaterThan(0);
      expect((final.usage as unknown as Json).cost).toBeGreaterThan(0);
    });
  }
});

describe("failures as the client sees them", () => {
  test("the official client sees response.failed as the last event of the iteration", async () => {
    const stream = await rig.client.responses.create({ model: NATIVE, input: "go [fake failed]", stream: true });
    const seen: OpenAI.Responses.ResponseStreamEvent[] = [];
    for await (const event of stream) seen.push(event);
    const last = seen.at(-1)!;
    expect(last.type).toBe("response.failed");
    expect((last as OpenAI.Responses.ResponseFailedEvent).response.error?.message).toBeTruthy();
  });

  test("the responses.stream() helper resolves a failed stream with status failed and the error", async () => {
    const final = await rig.client.responses.stream({ model: NATIVE, input: "go [fake cut]" }).finalResponse();
    expect(final.status).toBe("failed");
    expect(final.error).toMatchObject({ code: "server_error", message: "Upstream stream ended before the response completed" });
    expect((final as unknown as Json).error_type).toBe("provider_unavailable");
  });

  for (const [label, model, input, status, errorType] of [
    ["openai adapter", CHAT, "[sim status=529]", 529, "provider_overloaded"],
    ["openai-responses adapter", NATIVE, "[fake error status=429]", 429, "rate_limit_exceeded"],
  ] as const) {
    test(`${label}: a failure before the stream started is a normal ${status} with the envelope`, async () => {
      const res = await rig.gw.request("/responses", { method: "POST", json: { model, input, stream: true } });
      expect(res.status).toBe(status);
      expect(res.headers.get("content-type")).toContain("application/json");
      const body = (await res.json()) as Json;
      expect(body.error.code).toBe(status);
      expect(body.error.metadata.error_type).toBe(errorType);
      expect(body).toHaveProperty("service_metadata", null);
      expect(body).toHaveProperty("user_id", null);
      const failure = await rig.client.responses.create({ model, input, stream: true }).catch((e: unknown) => e);
      expect(failure).toBeInstanceOf(OpenAI.APIError);
      expect((failure as InstanceType<typeof OpenAI.APIError>).status).toBe(status);
    });
  }
});

describe("service_metadata on response.completed", () => {
  for (const header of ["X-Service-Metadata", "X-Service-Experimental-Metadata"]) {
    test(`${header}: enabled (both adapters)`, async () => {
      for (const [model, provider] of [[CHAT, "acme"], [NATIVE, "native"]] as const) {
        const frames = await rawFrames({ model, input: "hi" }, { [header]: "enabled" });
        expectServiceMetadata(terminalOf(frames, "response.completed").response.service_metadata, model, provider);
        // Only the terminal event carries it (it is complete only then).
        expect(eventsOf(frames).slice(0, -1).some((e) => e.response?.service_metadata !== undefined)).toBe(false);
      }
    });
  }

  test("absent without the header and with disabled", async () => {
    const variants: Array<Record<string, string>> = [{}, { "X-Service-Metadata": "disabled" }];
    for (const headers of variants) {
      const frames = await rawFrames({ model: NATIVE, input: "hi" }, headers);
      expect(terminalOf(frames, "response.completed").response).not.toHaveProperty("service_metadata");
    }
  });
});

describe("keep-alive (server.keep_alive_ms = 100)", () => {
  test("a slow stream carries `: SERVICE PROCESSING` comments between events", async () => {
    const frames = await rawFrames({ model: CHAT, input: "slow [sim tokens=3 delay=300]" });
    terminalOf(frames, "response.completed");
    const isEvent = (f: Frame, type: string) => f.kind === "event" && f.data.type === type;
    const firstDelta = frames.findIndex((f) => isEvent(f, "response.output_text.delta"));
    const terminal = frames.findIndex((f) => isEvent(f, "response.completed"));
    const comments = frames.flatMap((f, i) => (f.kind === "comment" ? [{ f, i }] : []));
    expect(comments.length).toBeGreaterThan(0);
    for (const { f } of comments) expect(f).toEqual({ kind: "comment", text: ": SERVICE PROCESSING" });
    expect(comments.some(({ i }) => i > firstDelta && i < terminal)).toBe(true);
    expect(eventsOf(frames).filter((e) => e.type === "response.output_text.delta")).toHaveLength(3);
  });

  test("the official client parses a stream with keep-alive comments", async () => {
    const stream = rig.client.responses.stream({ model: CHAT, input: "slow [sim tokens=3 delay=300]" });
    let deltas = 0;
    stream.on("response.output_text.delta", () => deltas++);
    const final = await stream.finalResponse();
    expect(final.status).toBe("completed");
    expect(deltas).toBe(3);
    expect(final.output_text.split(/\s+/)).toHaveLength(3);
  });
});
