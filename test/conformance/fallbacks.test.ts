/**
 * When the primary model fails (or refuses), the fallback models are tried in order — Messages
 * `fallbacks: [{model}]`, chat / Responses `models: [...]`. Asserted through the upstream calls the fake recorded
 * (which endpoint, in which order) and the routing metadata the client sees, collected and streamed, with the
 * primary and the fallbacks on different adapters.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { fixture, midStreamErrorReply, replyOf, serverErrorReply, WIRE, type AdapterId } from "../support/fake-upstream/fixtures.ts";
import type { JsonReply } from "../support/fake-upstream/server.ts";
import { FORMATS, send, type Conversation, type FormatId } from "./support/client.ts";
import { QUESTION } from "./support/matrix.ts";
import { MODEL, PROVIDER, startConformance, type Conformance } from "./support/setup.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

type Json = Record<string, unknown>;

/** The request naming a primary and its fallbacks, in the format's own field. */
function withFallbacks(format: FormatId, primary: AdapterId, fallbacks: AdapterId[], stream: boolean): Conversation {
  const models = fallbacks.map((a) => MODEL[a]);
  return {
    model: MODEL[primary],
    turns: [{ role: "user", text: QUESTION }],
    stream,
    extra: format === "messages" ? { fallbacks: models.map((model) => ({ model })) } : { models },
  };
}

const overloaded = (stream: boolean): JsonReply => ({
  kind: "json",
  status: 529,
  body: { type: "error", error: { type: "overloaded_error", message: "Overloaded" }, request_id: "req_011CSHoEeqs5C35K2UUqR7Fq" },
  expectPath: WIRE.anthropic.path(stream),
});
const unavailable = (stream: boolean): JsonReply => ({
  kind: "json",
  status: 503,
  body: { error: { code: 503, message: "The model is overloaded. Please try again later.", status: "UNAVAILABLE" } },
  expectPath: WIRE.gemini.path(stream),
});

/** Which adapter each recorded upstream call went to, in order. */
function calledAdapters(): string[] {
  return c.fake.requests.map((r) => (r.path.startsWith("/v1beta/") ? "gemini" : r.path === "/v1/messages" ? "anthropic" : r.path === "/v1/responses" ? "openai-responses" : "openai"));
}

for (const format of FORMATS) {
  for (const stream of [false, true]) {
    describe(`${format} (${stream ? "streamed" : "collected"})`, () => {
      test("primary fails, first fallback fails, second fallback serves — in that order", async () => {
        c.fake.enqueue(overloaded(stream), unavailable(stream), replyOf("openai", "text", stream));
        const seen = await send(c.gw, format, withFallbacks(format, "anthropic", ["gemini", "openai"], stream), { metadata: true });
        expect(seen.error).toBeUndefined();
        expect(seen.status).toBe(200);
        expect(seen.text).toBe(fixture("openai", "text").expect.text as string);
        expect(calledAdapters()).toEqual(["anthropic", "gemini", "openai"]);
        expect(seen.model).toBe(MODEL.openai);
        if (format !== "responses") expect(seen.provider).toBe(PROVIDER.openai);
        const metadata = seen.metadata as Json;
        expect(metadata.attempt).toBe(3);
        expect(metadata.requested).toBe(MODEL.anthropic);
        const available = (metadata.endpoints as { available: Json[] }).available;
        expect(available.filter((e) => e.selected)).toEqual([{ model: MODEL.openai, provider: PROVIDER.openai, selected: true }]);
        expect(available.map((e) => e.model)).toEqual(expect.arrayContaining([MODEL.anthropic, MODEL.gemini, MODEL.openai]));
      });

      test("the first fallback that works ends the walk; later fallbacks are never called", async () => {
        c.fake.enqueue(overloaded(stream), replyOf("gemini", "text", stream));
        const seen = await send(c.gw, format, withFallbacks(format, "anthropic", ["gemini", "openai-responses"], stream), { metadata: true });
        expect(seen.status).toBe(200);
        expect(calledAdapters()).toEqual(["anthropic", "gemini"]);
        expect(seen.model).toBe(MODEL.gemini);
        expect((seen.metadata as Json).attempt).toBe(2);
      });

      test("a working primary never touches the fallbacks", async () => {
        c.fake.enqueue(replyOf("anthropic", "text", stream));
        const seen = await send(c.gw, format, withFallbacks(format, "anthropic", ["gemini", "openai"], stream), { metadata: true });
        expect(seen.status).toBe(200);
        expect(calledAdapters()).toEqual(["anthropic"]);
        expect(seen.model).toBe(MODEL.anthropic);
        expect((seen.metadata as Json).attempt).toBe(1);
      });

      test("every model fails: each was tried once, in order, and the last failure is reported", async () => {
        c.fake.enqueue(overloaded(stream), unavailable(stream), serverErrorReply("openai", stream));
        const seen = await send(c.gw, format, withFallbacks(format, "anthropic", ["gemini", "openai"], stream));
        expect(calledAdapters()).toEqual(["anthropic", "gemini", "openai"]);
        expect(seen.status).toBe(502);
        expect(seen.error?.type).toBe("provider_unavailable");
      });

      // Spec "Messages request": fallbacks are tried "if the primary fails or refuses". A refusal is a 200 with
      // stop_reason `refusal`; it moves on to the next model while the client has seen nothing of it: always for a
      // whole result, and for a stream only when the refusal comes before any content (bytes already relayed cannot
      // be taken back, so such a refusal reaches the client as is).
      if (!stream) {
        test("primary refuses (stop_reason refusal): the next fallback is tried", async () => {
          c.fake.enqueue(replyOf("anthropic", "refusal", stream), replyOf("gemini", "text", stream));
          const seen = await send(c.gw, format, withFallbacks(format, "anthropic", ["gemini"], stream), { metadata: true });
          expect(calledAdapters()).toEqual(["anthropic", "gemini"]);
          expect(seen.finish).toBe("stop");
          expect(seen.model).toBe(MODEL.gemini);
          expect((seen.metadata as Json).attempt).toBe(2);
          expect((seen.metadata as Json).strategy).toBe("fallback");
        });

        test("a refusal with no other model left is returned as is", async () => {
          c.fake.enqueue(replyOf("anthropic", "refusal", stream));
          const seen = await send(c.gw, format, withFallbacks(format, "anthropic", [], stream));
          expect(calledAdapters()).toEqual(["anthropic"]);
          expect(seen.status).toBe(200);
          expect(seen.model).toBe(MODEL.anthropic);
        });
      } else {
        test("a streamed refusal that already sent text reaches the client as is (never a second upstream call)", async () => {
          c.fake.enqueue(replyOf("anthropic", "refusal", stream), replyOf("gemini", "text", stream));
          const seen = await send(c.gw, format, withFallbacks(format, "anthropic", ["gemini"], stream));
          expect(calledAdapters()).toEqual(["anthropic"]);
          expect(seen.status).toBe(200);
          expect(seen.model).toBe(MODEL.anthropic);
          expect(c.fake.pending()).toBe(1);
        });
      }
    });
  }

  test(`${format}: a stream that fails after it started is never retried on a fallback`, async () => {
    c.fake.enqueue(midStreamErrorReply("anthropic"), replyOf("gemini", "text", true));
    const seen = await send(c.gw, format, withFallbacks(format, "anthropic", ["gemini"], true));
    expect(calledAdapters()).toEqual(["anthropic"]);
    expect(seen.status).toBe(200);
    expect(seen.error?.type).toBe("provider_overloaded");
    expect(c.fake.pending()).toBe(1);
  });
}

describe("warnings after a fallback", () => {
  test("only the serving attempt's warnings reach service_metadata (a failed attempt's translation notes do not)", async () => {
    // openai-responses cannot carry top_k (it warns); anthropic can. The first fails, the second serves.
    c.fake.enqueue(serverErrorReply("openai-responses", false), replyOf("anthropic", "text", false));
    const conversation = withFallbacks("messages", "openai-responses", ["anthropic"], false);
    const seen = await send(c.gw, "messages", { ...conversation, extra: { ...conversation.extra, top_k: 5 } }, { metadata: true });
    expect(calledAdapters()).toEqual(["openai-responses", "anthropic"]);
    expect(seen.status).toBe(200);
    expect((c.fake.requests[1]!.body as Json).top_k).toBe(5);
    const warnings = ((seen.metadata as Json).warnings ?? []) as Array<{ field?: string }>;
    expect(warnings.some((w) => w.field === "top_k")).toBe(false);
  });

  test("the serving attempt's own warnings are still reported", async () => {
    c.fake.enqueue(replyOf("openai-responses", "text", false));
    const conversation = withFallbacks("messages", "openai-responses", ["anthropic"], false);
    const seen = await send(c.gw, "messages", { ...conversation, extra: { ...conversation.extra, top_k: 5 } }, { metadata: true });
    const warnings = ((seen.metadata as Json).warnings ?? []) as Array<{ field?: string }>;
    expect(warnings.some((w) => w.field === "top_k")).toBe(true);
  });
});
