/**
 * Translation matrix, content features: text, system prompt, multi-turn history, images by data URL
 * and by http URL — for every inbound format × upstream adapter, collected and streamed. Each cell asserts what
 * the client saw (in its own format) and what the fake upstream received (in its own dialect).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { fixture, replyOf, wireFamily } from "../support/fake-upstream/fixtures.ts";
import { send } from "./support/client.ts";
import { allCells, IMAGE_URL, PNG_DATA_URL, QUESTION, upstreamCall } from "./support/matrix.ts";
import { MODEL, PROVIDER, startConformance, type Conformance } from "./support/setup.ts";
import { textLines } from "./support/upstream-view.ts";

let c: Conformance;
beforeAll(async () => void (c = await startConformance()));
afterAll(() => c.close());
beforeEach(() => c.fake.reset());

for (const cell of allCells()) {
  const { format, adapter, stream } = cell;
  describe(cell.label, () => {
    test("text: the answer, its finish and the served model reach the client", async () => {
      const expected = fixture(adapter, "text").expect;
      c.fake.enqueue(replyOf(adapter, "text", stream));
      const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: QUESTION }], stream });
      expect(seen.error).toBeUndefined();
      expect(seen.status).toBe(200);
      expect(seen.text).toBe(expected.text as string);
      expect(seen.finish).toBe("stop");
      expect(seen.model).toBe(MODEL[adapter]);
      if (stream) {
        expect(seen.deltaText).toBe(expected.text as string);
        expect(seen.ended).toBe(true);
      }
      // Chat and Messages results name the serving provider (spec "Messages result" `provider`); Responses has no field.
      if (format !== "responses") expect(seen.provider).toBe(PROVIDER[adapter]);
      const view = upstreamCall(c.fake, adapter, stream);
      expect(view.system).toBeUndefined();
      expect(textLines(view)).toEqual([`user: ${QUESTION}`]);
      expect(c.fake.requests).toHaveLength(1);
    });

    test("system prompt: sent in the upstream's system slot, not as a turn", async () => {
      c.fake.enqueue(replyOf(adapter, "text", stream));
      const system = "You are a terse geography assistant. Answer in one sentence.";
      const seen = await send(c.gw, format, { model: MODEL[adapter], system, turns: [{ role: "user", text: QUESTION }], stream });
      expect(seen.status).toBe(200);
      const view = upstreamCall(c.fake, adapter, stream);
      expect(view.system).toBe(system);
      expect(textLines(view)).toEqual([`user: ${QUESTION}`]);
    });

    test("multi-turn history: every turn arrives in order with its role", async () => {
      c.fake.enqueue(replyOf(adapter, "text", stream));
      const seen = await send(c.gw, format, {
        model: MODEL[adapter],
        turns: [
          { role: "user", text: "Hi, I have a geography question." },
          { role: "assistant", text: "Sure, go ahead." },
          { role: "user", text: "Which river runs through Paris?" },
          { role: "assistant", text: "The Seine." },
          { role: "user", text: QUESTION },
        ],
        stream,
      });
      expect(seen.status).toBe(200);
      expect(seen.text).toBe(fixture(adapter, "text").expect.text as string);
      expect(textLines(upstreamCall(c.fake, adapter, stream))).toEqual([
        "user: Hi, I have a geography question.",
        "assistant: Sure, go ahead.",
        "user: Which river runs through Paris?",
        "assistant: The Seine.",
        `user: ${QUESTION}`,
      ]);
    });

    for (const [kind, image] of [["data URL", PNG_DATA_URL], ["http URL", IMAGE_URL]] as const) {
      test(`image by ${kind}: the upstream receives the same image next to the text`, async () => {
        c.fake.enqueue(replyOf(adapter, "text", stream));
        const seen = await send(c.gw, format, { model: MODEL[adapter], turns: [{ role: "user", text: "What landmark is this?", image }], stream });
        expect(seen.status).toBe(200);
        const view = upstreamCall(c.fake, adapter, stream);
        if (adapter === "bedrock" && kind === "http URL") {
          // Bedrock fetches no URL (bytes or s3:// only): the image is not sent, and a warning says so.
          expect(view.items).toEqual([{ kind: "text", role: "user", text: "What landmark is this?" }]);
          return;
        }
        expect(view.items).toEqual([
          { kind: "text", role: "user", text: "What landmark is this?" },
          { kind: "image", src: image },
        ]);
        if (wireFamily(adapter) === "gemini" && kind === "http URL") {
          // Gemini wants a mime type next to fileUri; the adapter guesses it from the extension.
          const part = ((view.body.contents as Array<{ parts: Array<Record<string, unknown>> }>)[0]?.parts ?? [])[1];
          expect(part?.fileData).toEqual({ fileUri: IMAGE_URL, mimeType: "image/png" });
        }
      });
    }
  });
}
