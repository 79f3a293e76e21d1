/**
 * The PII built-ins match on a normalised view of the text (core/guardrails/detectors/normalize.ts: NFKC, invisible
 * characters removed, every space a space) and redact exactly the original characters, on the request and on the
 * answer (whole and streamed): a card number grouped with dots or non-breaking spaces, a fullwidth `＠`, a zero-width
 * space inside an email or a card number.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { MODEL, startConformance, type Conformance } from "../../conformance/support/setup.ts";
import { send, type Seen } from "../../conformance/support/client.ts";
import { streamedReply, wholeReply } from "./chunked-replies.ts";
import { guardrail, newKey } from "./setup.ts";

type Json = Record<string, any>;

const VARIANTS: ReadonlyArray<{ name: string; value: string; placeholder: string }> = [
  { name: "a card grouped with dots", value: "4111.1111.1111.1111", placeholder: "[CREDIT_CARD]" },
  { name: "a card grouped with non-breaking spaces", value: "4111\u00a01111\u00a01111\u00a01111", placeholder: "[CREDIT_CARD]" },
  { name: "a card with a zero-width space inside", value: "4111 1111\u200b 1111 1111", placeholder: "[CREDIT_CARD]" },
  { name: "an email with a fullwidth at sign", value: "jane.doe\uff20example.com", placeholder: "[EMAIL]" },
  { name: "an email with a zero-width space inside", value: "jane.d\u200boe@exam\u200cple.com", placeholder: "[EMAIL]" },
];
const BUILTINS = ["email", "credit-card"];
const textWith = (value: string) => `Mine is ${value}, thanks.`;

let conf: Conformance;
const keys: Record<string, string> = {};

beforeAll(async () => {
  conf = await startConformance();
  for (const [name, applyTo, action] of [
    ["in-redact", "input", "redact"],
    ["in-block", "input", "block"],
    ["out-redact", "output", "redact"],
    ["out-block", "output", "block"],
  ] as const) {
    const key = await newKey(conf.gw);
    await guardrail(conf.gw, { name, apply_to: applyTo, content_filter_builtins: BUILTINS.map((slug) => ({ slug, action })) }, { keyHash: key.hash });
    keys[name] = key.key;
  }
});
afterAll(() => conf.close());
beforeEach(() => conf.fake.reset());

const ask = (key: string, text: string, stream = false): Promise<Seen> =>
  send(conf.gw, "chat", { model: MODEL.openai, turns: [{ role: "user", text }], stream }, { metadata: true, headers: { authorization: `Bearer ${key}` } });

const upstreamUserText = () => ((conf.fake.last().body.messages as Json[]).find((m) => m.role === "user")?.content as string) ?? "";

describe.each(VARIANTS)("$name", ({ value, placeholder }) => {
  const text = textWith(value);
  const redacted = textWith(placeholder);

  test("input, redact: the upstream receives the placeholder in place of exactly the original characters", async () => {
    conf.fake.enqueue(wholeReply("ok"));
    const seen = await ask(keys["in-redact"]!, text);
    expect(seen.status).toBe(200);
    expect(upstreamUserText()).toBe(redacted);
  });

  test("input, block: a 403 and nothing reaches the upstream", async () => {
    const seen = await ask(keys["in-block"]!, text);
    expect(seen.status).toBe(403);
    expect(seen.error?.type).toBe("permission_denied");
    expect(conf.fake.requests).toHaveLength(0);
  });

  test("output, whole answer: redacted exactly, or a 403", async () => {
    conf.fake.enqueue(wholeReply(text));
    expect((await ask(keys["out-redact"]!, "Answer me.")).text).toBe(redacted);
    conf.fake.enqueue(wholeReply(text));
    expect((await ask(keys["out-block"]!, "Answer me.")).status).toBe(403);
  });

  test("output, streamed one character per chunk: redacted exactly, or the in-band 403 before any of it goes out", async () => {
    conf.fake.enqueue(streamedReply([...text]));
    expect((await ask(keys["out-redact"]!, "Answer me.", true)).deltaText).toBe(redacted);
    conf.fake.enqueue(streamedReply([...text]));
    const blocked = await ask(keys["out-block"]!, "Answer me.", true);
    expect(blocked.error?.status).toBe(403);
    expect(text.startsWith(blocked.deltaText) && blocked.deltaText.length <= text.indexOf(value)).toBe(true);
  });
});
