/**
 * Output guardrails on spoken answers: the transcript of `message.audio`
 * is checked like the text. Non-streamed: a block is a 403; a redaction rewrites the transcript and withholds the
 * audio (and its upstream id), since no placeholder can be spoken into it. Streamed: a block ends the stream before
 * the piece whose transcript leaks goes out; `redact` is recorded, not rewritten (as for tool-call arguments).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { MODEL, startConformance, type Conformance } from "../../conformance/support/setup.ts";
import { mediaReply, TRANSCRIPT } from "../../support/fake-upstream/media-replies.ts";
import type { JsonReply, SseReply } from "../../support/fake-upstream/server.ts";
import { guardrail, newKey } from "./setup.ts";

type Json = Record<string, any>;

const SECRET = "AKIAIOSFODNN7EXAMPLE";
const LEAK = `The key is ${SECRET}.`;

let conf: Conformance;
let blocking: { key: string; hash: string };
let redacting: { key: string; hash: string };

beforeAll(async () => {
  conf = await startConformance();
  [blocking, redacting] = [await newKey(conf.gw), await newKey(conf.gw)];
  await guardrail(conf.gw, { name: "out-block", apply_to: "output", content_filter_builtins: [{ slug: "secrets", action: "block" }] }, { keyHash: blocking.hash });
  await guardrail(conf.gw, { name: "out-redact", apply_to: "output", content_filter_builtins: [{ slug: "secrets", action: "redact" }] }, { keyHash: redacting.hash });
});
afterAll(() => conf.close());
beforeEach(() => conf.fake.reset());

/** The chat upstream's media reply with the secret in the spoken transcript (the text itself is clean). */
function leakingReply(stream: boolean): JsonReply | SseReply {
  const reply = mediaReply("openai", stream);
  if (reply.kind === "json") (reply.body as Json).choices[0].message.audio.transcript = LEAK;
  else if (reply.kind === "sse") {
    for (const frame of reply.frames) {
      const audio = (frame.data as Json)?.choices?.[0]?.delta?.audio;
      if (audio?.transcript === "there.") audio.transcript = ` ${SECRET}.`;
    }
  }
  return reply as JsonReply | SseReply;
}

const ask = (key: string, stream = false) =>
  conf.gw.request("/chat/completions", { method: "POST", key, headers: { "x-service-metadata": "enabled" }, json: { model: MODEL.openai, messages: [{ role: "user", content: "Say the key" }], stream } });

async function chunks(res: Response): Promise<Json[]> {
  return (await res.text())
    .split("\n\n")
    .flatMap((f) => f.split("\n").filter((l) => l.startsWith("data: ") && l !== "data: [DONE]").map((l) => JSON.parse(l.slice(6)) as Json));
}

describe("non-streamed", () => {
  test("block: a secret in the transcript is a 403", async () => {
    conf.fake.enqueue(leakingReply(false));
    const res = await ask(blocking.key);
    expect(res.status).toBe(403);
    expect(((await res.json()) as Json).error.metadata).toMatchObject({ side: "output", patterns: ["aws_access_key_id"] });
  });

  test("redact: the transcript carries the placeholder and the audio is withheld", async () => {
    conf.fake.enqueue(leakingReply(false));
    const res = await ask(redacting.key);
    expect(res.status).toBe(200);
    const body = (await res.json()) as Json;
    expect(body.choices[0].message.audio).toEqual({ data: "", transcript: "The key is [SECRET:aws_access_key_id]." });
    expect(body.service_metadata.pipeline).toEqual([expect.objectContaining({ data: expect.objectContaining({ action: "redacted", side: "output" }) })]);
  });

  test("a clean transcript passes untouched", async () => {
    conf.fake.enqueue(mediaReply("openai", false));
    const body = (await (await ask(redacting.key)).json()) as Json;
    expect(body.choices[0].message.audio.transcript).toBe(TRANSCRIPT);
    expect(body.choices[0].message.audio.data.length).toBeGreaterThan(0);
  });
});

describe("streamed", () => {
  test("block: the stream ends in-band before the leaking piece goes out", async () => {
    conf.fake.enqueue(leakingReply(true));
    const all = await chunks(await ask(blocking.key, true));
    const spoken = all.map((c) => c.choices?.[0]?.delta?.audio?.transcript ?? "").join("");
    // Held while the secrets detector may still find something in it: at most the clean start goes out.
    expect("Hello ".startsWith(spoken)).toBe(true);
    expect(spoken).not.toContain("AKIA");
    expect(all.at(-1)!.error).toMatchObject({ code: 403, metadata: { side: "output" } });
  });

  test("redact: recorded in the pipeline entries; the spoken pieces pass as they are", async () => {
    conf.fake.enqueue(leakingReply(true));
    const all = await chunks(await ask(redacting.key, true));
    const spoken = all.map((c) => c.choices?.[0]?.delta?.audio?.transcript ?? "").join("");
    expect(spoken).toBe(`Hello  ${SECRET}.`);
    const pipeline = all.flatMap((c) => c.service_metadata?.pipeline ?? []);
    expect(pipeline).toEqual([expect.objectContaining({ type: "guardrail", data: expect.objectContaining({ side: "output" }) })]);
  });
});
