/**
 * Translation matrix, outcomes: stop reasons (max tokens, refusal / content filter), usage with
 * cache and reasoning tokens and its cost, and errors — an upstream non-2xx before anything was sent (status +
 * envelope), and a failure after the stream started (the format's in-band terminal error: chat error chunk with
 * finish_reason "error", Responses `response.failed` with error_type, Messages `event: error` with
 * error.error_type) — for every inbound format × upstream adapter.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { FIRST_TEXT, fixture, httpErrorReply, midStreamErrorReply, replyOf, resetReply, serverErrorReply, wireFamily } from "../support/fake-upstream/fixtures.ts";
import { frameJson, send, type FormatId, type Seen } from "./support/client.ts";
import { allCells, QUESTION, upstreamCall } from "./support/matrix.ts";
import { expectedCost, MODEL, startConformance, type Conformance } from "./support/setup.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

const NATIVE_FINISH: Record<"length" | "refusal", Record<FormatId, string>> = {
  length: { chat: "length", responses: "incomplete:max_output_tokens", messages: "max_tokens" },
  refusal: { chat: "content_filter", responses: "incomplete:content_filter", messages: "refusal" },
};

/** The format's in-band terminal error is the last thing on the wire, and carries the canonical error type. */
function expectInBandError(format: FormatId, seen: Seen, errorType: string, status?: number): void {
  expect(seen.status).toBe(200);
  expect(seen.ended).toBe(true);
  expect(seen.finish).toBe("error");
  expect(seen.error?.type).toBe(errorType);
  const data = seen.frames.filter((f) => f.data !== undefined);
  const last = data.at(-1);
  switch (format) {
    case "chat": {
      expect(last?.data).toBe("[DONE]");
      const chunk = frameJson(data.at(-2) ?? {}) as { choices: Array<{ finish_reason: string }>; error: { code: number; metadata: { error_type: string } } };
      expect(chunk.choices[0]?.finish_reason).toBe("error");
      expect(chunk.error.metadata.error_type).toBe(errorType);
      if (status !== undefined) expect(chunk.error.code).toBe(status);
      break;
    }
    case "responses": {
      expect(last?.data).toBe("[DONE]");
      const event = frameJson(data.at(-2) ?? {}) as { type: string; error_type: string; response: { status: string; error: { code: string } } };
      expect(event.type).toBe("response.failed");
      expect(event.error_type).toBe(errorType);
      expect(event.response.status).toBe("failed");
      expect(typeof event.response.error.code).toBe("string");
      break;
    }
    case "messages": {
      expect(last?.event).toBe("error");
      const event = frameJson(last ?? {}) as { type: string; error: { type: string; error_type: string; message: string } };
      expect(event.type).toBe("error");
      expect(event.error.error_type).toBe(errorType);
      expect(event.error.type).toMatch(/_error$/);
      expect(seen.frames.some((f) => f.event === "message_stop")).toBe(false);
      break;
    }
  }
}

for (const cell of allCells()) {
  const { format, adapter, stream } = cell;
  describe(cell.label, () => {
    test("stop reason max tokens: the limit reaches the upstream, the cut reaches the client", async () => {
      const expected = fixture(adapter, "max-tokens").expect;
      c.fake.enqueue(replyOf(adapter, "max-tokens", stream));
      const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], maxTokens: 5, stream });
      expect(seen.error).toBeUndefined();
      expect(seen.finish).toBe("length");
      expect(seen.nativeFinish).toBe(NATIVE_FINISH.length[format]);
      expect(seen.text).toBe(expected.text as string);
      expect(upstreamCall(c.fake, adapter, stream).maxTokens).toBe(5);
    });

    test("stop reason refusal / content filter: the client's format says so", async () => {
      c.fake.enqueue(replyOf(adapter, "refusal", stream));
      const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream });
      expect(seen.error).toBeUndefined();
      expect(seen.finish).toBe("refusal");
      expect(seen.nativeFinish).toBe(NATIVE_FINISH.refusal[format]);
      if (format === "messages") {
        // Anthropic's own stop_details pass through; otherwise the refusal text (if any) is the explanation.
        // Gemini's filter leaves no text; Bedrock's guardrail answers with its own message as ordinary text.
        const refusalText = wireFamily(adapter) === "gemini" || adapter === "bedrock" ? null : "I can't help with that request.";
        const details = fixture(adapter, "refusal").expect.stopDetails ?? { type: "refusal", category: null, explanation: refusalText };
        expect((seen.body as { stop_details: unknown }).stop_details).toEqual(details);
      }
    });

    test("usage: input with cached tokens, output with reasoning tokens, and the cost", async () => {
      const usage = fixture(adapter, "text").expect.usage;
      if (!usage) throw new Error("fixture without usage");
      c.fake.enqueue(replyOf(adapter, "text", stream));
      const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream });
      expect(seen.usage).toBeDefined();
      expect(seen.usage?.input).toBe(usage.input);
      expect(seen.usage?.cacheRead).toBe(usage.cacheRead);
      // Responses usage has no cache-write counter (spec "Usage object"); chat and Messages show it.
      if (format !== "responses") expect(seen.usage?.cacheWrite).toBe(usage.cacheWrite);
      expect(seen.usage?.output).toBe(usage.output);
      expect(seen.usage?.reasoning).toBe(usage.reasoning);
      expect(seen.usage?.cost).toBeCloseTo(expectedCost(usage), 12);
      expect(seen.usage?.cost).toBeGreaterThan(0);
    });

    if (format === "chat" && stream) {
      // The usage always comes, as OpenRouter sends it; without include_usage on the finish chunk.
      test("usage without stream_options.include_usage: on the finish chunk, the same as with it", async () => {
        const usage = fixture(adapter, "text").expect.usage!;
        c.fake.enqueue(replyOf(adapter, "text", stream));
        const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream, extra: { stream_options: undefined } });
        const chunks = seen.frames.map(frameJson).filter((chunk) => chunk !== undefined) as Array<{ choices: Array<{ finish_reason: string | null }>; usage?: unknown }>;
        expect(chunks.every((chunk) => chunk.choices.length === 1)).toBe(true);
        const finish = chunks.find((chunk) => chunk.choices[0]?.finish_reason !== null);
        expect(finish?.usage).toBeDefined();
        expect(chunks.filter((chunk) => chunk.usage !== undefined)).toEqual([finish!]);
        expect([seen.usage?.input, seen.usage?.cacheRead, seen.usage?.output, seen.usage?.reasoning]).toEqual([usage.input, usage.cacheRead, usage.output, usage.reasoning]);
        expect(seen.usage?.cost).toBeCloseTo(expectedCost(usage), 12);
      });
    }

    test("upstream non-2xx before anything was sent: the status and the error envelope", async () => {
      const expected = fixture(adapter, "error").expect;
      c.fake.enqueue(httpErrorReply(adapter, stream));
      const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream });
      expect(seen.status).toBe(expected.httpStatus as number);
      expect(seen.headers.get("content-type")).toContain("application/json");
      expect(seen.error?.type).toBe(expected.httpErrorType as string);
      expect(seen.error?.status).toBe(expected.httpStatus as number);
      expect(seen.error?.message).toBeTruthy();
      const retryAfter = fixture(adapter, "error").http?.headers?.["retry-after"];
      if (retryAfter !== undefined) expect(seen.headers.get("retry-after")).toBe(retryAfter);
      expect(c.fake.requests).toHaveLength(1);
    });

    test("upstream 500: reported as a 502 provider failure, without upstream internals", async () => {
      c.fake.enqueue(serverErrorReply(adapter, stream));
      const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream });
      expect(seen.status).toBe(502);
      expect(seen.error?.type).toBe("provider_unavailable");
      expect(JSON.stringify(seen.body)).not.toContain("sk-");
    });

    if (stream) {
      test("failure mid-stream (upstream error event): partial output, then the format's in-band terminal error", async () => {
        const expected = fixture(adapter, "error").expect;
        c.fake.enqueue(midStreamErrorReply(adapter));
        const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream });
        expect(seen.deltaText).toBe(expected.partialText as string);
        expectInBandError(format, seen, expected.streamErrorType as string, expected.streamStatus);
      });

      test("failure mid-stream (connection dropped): the format's in-band terminal error, never a silent cut", async () => {
        c.fake.enqueue(resetReply(adapter));
        const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream });
        expect(seen.deltaText).toBe(FIRST_TEXT);
        expectInBandError(format, seen, "provider_unavailable", 502);
      });
    }
  });
}
