/**
 * Output guardrails on a stream (core/guardrails/output-stream.ts): text checked as it arrives gets the verdict of
 * the whole answer however it is chunked. Text a block or redact finding could still cover is held back until it is
 * known clean, so a block ends the stream with the in-band error before any of the match goes out (also when the
 * match is only confirmed by the next chunk), and a redaction releases the same text a whole-answer redaction gives;
 * without a filter that can act on text nothing is held (the first token is not delayed).
 */
import { describe, expect, test } from "bun:test";
import { BUILTIN_DETECTORS, BUILTIN_SLUGS } from "../../../core/guardrails/detectors/builtins.ts";
import { customDetector } from "../../../core/guardrails/detectors/custom.ts";
import type { Detector } from "../../../core/guardrails/detectors/types.ts";
import { guardStream } from "../../../core/guardrails/output-stream.ts";
import type { Filter } from "../../../core/guardrails/policy.ts";
import { applyRedactions } from "../../../core/guardrails/redact.ts";
import type { TextSlot } from "../../../core/guardrails/request-texts.ts";
import { scanSlots } from "../../../core/guardrails/scan.ts";
import { isGatewayError } from "../../../core/errors.ts";
import type { StreamEvent } from "../../../core/model/events.ts";
import type { PipelineEntry } from "../../../core/pipeline/context.ts";
import type { GuardrailAction } from "../../../core/store/types.ts";
import { CORPUS, HELD_OUT } from "../../fixtures/guardrails/corpus.ts";

const guardrail = { id: "grd_1", name: "out", scope: "api-key" as const };
const filterOf = (detector: Detector, action: GuardrailAction): Filter => ({ guardrail, detector, action, scanScope: "all_messages", input: false, output: true });
const builtin = (slug: string, action: GuardrailAction): Filter => filterOf(BUILTIN_DETECTORS.get(slug)!, action);
const custom = (pattern: string, action: GuardrailAction, label?: string): Filter => ({ ...filterOf(customDetector(pattern, label, 0), action), ...(label ? { label } : {}) });

async function* source(chunks: readonly string[], extra: StreamEvent[] = []): AsyncIterable<StreamEvent> {
  yield { type: "start", id: "r", model: "m", provider: "p", created: 0 };
  yield { type: "text-start", id: "t" };
  for (const delta of chunks) yield { type: "text-delta", id: "t", delta };
  yield { type: "text-end", id: "t" };
  yield* extra;
  yield { type: "finish", finish: { reason: "stop" } };
}

async function collect(events: AsyncIterable<StreamEvent>, filters: Filter[]) {
  const pipeline: PipelineEntry[] = [];
  const out: StreamEvent[] = [];
  for await (const event of guardStream(events, filters, { pipeline })) out.push(event);
  const deltas = out.flatMap((e) => (e.type === "text-delta" ? [e.delta] : []));
  const error = out.find((e): e is Extract<StreamEvent, { type: "error" }> => e.type === "error");
  return { out, deltas, text: deltas.join(""), pipeline, error };
}

const run = (chunks: readonly string[], filters: Filter[], extra: StreamEvent[] = []) => collect(source(chunks, extra), filters);

/** Splits `text` into pieces of the given sizes, cycling. */
function chunked(text: string, sizes: readonly number[]): string[] {
  const chunks: string[] = [];
  for (let i = 0, k = 0; i < text.length; k++) {
    const size = sizes[k % sizes.length]!;
    chunks.push(text.slice(i, i + size));
    i += size;
  }
  return chunks;
}

const actions = (pipeline: readonly PipelineEntry[]) => pipeline.map((p) => (p.data as { action: string }).action);

describe("streamed output: block", () => {
  test("a match the next chunk confirms (a word boundary after it) ends the stream before any of it goes out", async () => {
    for (const pattern of ["forbidden-word", "\\bforbidden-word\\b", "forbidden-word(?:s)?"]) {
      const { deltas, error, pipeline, out } = await run(["Say forbidden-word", " now, please."], [custom(pattern, "block", "FORBIDDEN")]);
      expect(deltas.join("")).not.toContain("forbidden");
      expect(error && isGatewayError(error.error) && error.error.status).toBe(403);
      expect(error!.error.message).toBe("Response blocked by content filter: FORBIDDEN");
      expect(actions(pipeline)).toEqual(["blocked"]);
      expect(out.at(-1)?.type).toBe("error");
    }
  });

  test("a secret split across deltas ends the stream with a 403 before any of it goes out", async () => {
    const { deltas, error, pipeline, out } = await run(["The key is AKIA", "IOSFODNN7EXAMPLE", " and more"], [builtin("secrets", "block")]);
    expect(deltas.join("")).not.toContain("AKIA");
    expect("The key is AKIAIOSFODNN7EXAMPLE".startsWith(deltas.join(""))).toBe(true);
    const failure = error!.error;
    expect(isGatewayError(failure) && failure.status).toBe(403);
    expect(failure.message).toBe("Response blocked by content filter: SECRET");
    expect(failure.metadata).toMatchObject({ patterns: ["aws_access_key_id"], side: "output", guardrail_id: "grd_1" });
    expect(pipeline).toEqual([expect.objectContaining({ type: "guardrail", name: "secrets_detection", data: expect.objectContaining({ action: "blocked", side: "output" }) })]);
    expect(out.at(-1)?.type).toBe("error");
  });

  test("without a filter that can act on text nothing is held back: each delta goes out as it came", async () => {
    const chunks = ["Hello jane@exa", "mple.com, the key", " is AKIAIOSFODNN7EXAMPLE", " nothing to see."];
    const { out, pipeline } = await run(chunks, [builtin("email", "flag"), builtin("secrets", "flag"), custom("nothing", "flag")]);
    expect(out.filter((e) => e.type === "text-delta")).toEqual(chunks.map((delta) => ({ type: "text-delta", id: "t", delta })));
    expect(actions(pipeline)).toEqual(["flagged", "flagged", "flagged"]);
  });

  test("a block holds back only as much as a finding may still span", async () => {
    const { deltas } = await run(["Hello there general ", "Kenobi. ", "mail me"], [builtin("email", "block")]);
    expect(deltas).toEqual(["Hello there general ", "Kenobi. ", "mail ", "me"]);
    const pattern = await run(["Hello there ", "general Kenobi"], [custom("forbidden", "block")]);
    expect(pattern.deltas).toEqual(["Hello there ", "general Kenobi"]);
  });

  test("a finding whose text went out (a detector that let it go too early) still ends the stream and is recorded", async () => {
    // A resumable detector that says no match is in progress but reports a word only once something follows it.
    const late: Detector = {
      slug: "custom",
      label: "LATE",
      engine: "regex",
      maxSpan: Infinity,
      find: () => [],
      stream() {
        let text = "";
        return {
          feed: (piece) => void (text += piece),
          finish: () => undefined,
          get findings() {
            return [...text.matchAll(/secret(?=\W)/g)].map((m) => ({ start: m.index, end: m.index + 6, pattern: "late" }));
          },
          liveFrom: () => Infinity,
        };
      },
    };
    const { deltas, error, pipeline } = await run(["the secret", " is out"], [filterOf(late, "block")]);
    expect(deltas).toEqual(["the secret"]);
    expect(error?.error.status).toBe(403);
    expect(actions(pipeline)).toEqual(["blocked"]);
  });

  test("tool-call arguments are held for a block: the stream ends before the delta with the match goes out", async () => {
    const call: StreamEvent[] = [
      { type: "tool-call-start", id: "c", name: "mail" },
      { type: "tool-call-delta", id: "c", delta: '{"to": "bob@exa' },
      { type: "tool-call-delta", id: "c", delta: 'mple.com", "body": "hi"}' },
      { type: "tool-call-end", id: "c" },
    ];
    const { out, error } = await run(["ok"], [builtin("email", "block")], call);
    const args = out.flatMap((e) => (e.type === "tool-call-delta" ? [e.delta] : [])).join("");
    expect(args).not.toContain("bob@");
    expect(error?.error.status).toBe(403);
  });
});

describe("streamed output: redact", () => {
  const answer = "Write to jane.doe@example.com or call 555-123-4567; the token is ghp_16C7e42F292c6912E7710c838347Ae178B4a, done.";
  const filters = () => [builtin("email", "redact"), builtin("phone", "redact"), builtin("secrets", "redact")];
  const expected = "Write to [EMAIL] or call [PHONE]; the token is [SECRET:github_token], done.";

  test("however the answer is chunked, the released text is the whole-answer redaction and never holds a finding", async () => {
    for (const sizes of [[1], [2], [3, 7], [5, 1, 9], [13], [64], [answer.length]]) {
      const { text, deltas } = await run(chunked(answer, sizes), filters());
      expect(text).toBe(expected);
      for (const d of deltas) {
        expect(d).not.toContain("jane");
        expect(d).not.toContain("ghp_");
        expect(d).not.toContain("4567");
      }
    }
  });

  test("only as much is held back as a finding may still span", async () => {
    const { deltas } = await run(["Hello there general ", "Kenobi. ", "mail me"], [builtin("email", "redact")]);
    // Email: only the last token is held; each delta releases everything before it.
    expect(deltas).toEqual(["Hello there general ", "Kenobi. ", "mail ", "me"]);
  });

  test("an operator's pattern with an unbounded repeat holds back only while a match is in progress", async () => {
    const { deltas, text } = await run(["order 12", "345", "678 shipped", " today"], [custom("\\d{3,}", "redact")]);
    expect(text).toBe("order [REDACTED] shipped today");
    expect(deltas[0]).toBe("order ");
    expect(deltas.join("|")).not.toMatch(/\d{3}/);
  });

  test("a word the next chunk confirms is redacted, not passed on", async () => {
    const { text, deltas } = await run(["Say forbidden-word", " now."], [custom("\\bforbidden-word\\b", "redact")]);
    expect(text).toBe("Say [REDACTED] now.");
    for (const d of deltas) expect(d).not.toContain("forbidden");
  });

  test("findings are reported in the pipeline before the finish goes out", async () => {
    const { pipeline, out } = await run(["mail jane@example.com now"], [builtin("email", "redact"), builtin("phone", "flag")]);
    expect(actions(pipeline)).toEqual(["redacted"]);
    expect(out.at(-1)?.type).toBe("finish");
  });

  test("tool-call arguments are checked but never rewritten mid-stream: a redact there is recorded like a flag", async () => {
    const call: StreamEvent[] = [
      { type: "tool-call-start", id: "c", name: "mail" },
      { type: "tool-call-delta", id: "c", delta: '{"to":"bob@exa' },
      { type: "tool-call-delta", id: "c", delta: 'mple.com"}' },
      { type: "tool-call-end", id: "c" },
    ];
    const { out, pipeline } = await run(["ok"], [builtin("email", "redact")], call);
    expect(out.filter((e) => e.type === "tool-call-delta").map((e) => (e as { delta: string }).delta).join("")).toBe('{"to":"bob@example.com"}');
    expect(actions(pipeline)).toEqual(["flagged"]);
  });
});

describe("streamed output: spoken transcripts", () => {
  const audio = (transcript: string, data = "AAAA"): StreamEvent => ({ type: "audio", id: "a", data, transcript });

  test("block: a piece waits while its transcript is held, and the one completing a match never goes out", async () => {
    const { out, error } = await collect(
      (async function* () {
        yield* [audio("Say "), audio("forbidden-"), audio("word"), audio(" now.")];
        yield { type: "finish", finish: { reason: "stop" } } as StreamEvent;
      })(),
      [custom("\\bforbidden-word\\b", "block")],
    );
    const spoken = out.flatMap((e) => (e.type === "audio" ? [e.transcript] : [])).join("");
    expect(spoken).toBe("Say ");
    expect(error?.error.status).toBe(403);
  });

  test("without a block filter every piece goes out as it came", async () => {
    const pieces = [audio("Say "), audio("forbidden-"), audio("word"), audio(" now.")];
    const { out, pipeline } = await collect(
      (async function* () {
        yield* pieces;
        yield { type: "finish", finish: { reason: "stop" } } as StreamEvent;
      })(),
      [custom("\\bforbidden-word\\b", "redact")],
    );
    expect(out.filter((e) => e.type === "audio") as StreamEvent[]).toEqual(pieces);
    expect(actions(pipeline)).toEqual(["flagged"]);
  });
});

/** A small seeded generator, so a failing chunking can be reproduced. */
function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Random pieces of 1 to `max` characters (never splitting a surrogate pair). */
function randomChunks(text: string, next: () => number, max: number): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; ) {
    let end = Math.min(text.length, i + 1 + Math.floor(next() * max));
    if (end < text.length && /[\udc00-\udfff]/.test(text[end]!)) end++;
    chunks.push(text.slice(i, end));
    i = end;
  }
  return chunks;
}

/** What the whole (non-streamed) answer gets: the verdict and the redacted text. */
async function wholeAnswer(text: string, filters: Filter[]) {
  const slot: TextSlot = { role: "assistant", text, set: () => undefined };
  const verdict = await scanSlots([slot], filters, "output");
  applyRedactions(verdict.redactions);
  return { verdict, redacted: slot.text };
}

/** Texts with something to find for each built-in (the labelled corpus), normalisation variants, and an operator's pattern. */
const VARIANTS: ReadonlyArray<[string, string]> = [
  ["credit-card", "card 4111.1111.1111.1111 on file"],
  ["credit-card", "card 4111\u00a01111\u00a01111\u00a01111 on file"],
  ["credit-card", "card 4111 1111\u200b 1111 1111 on file"],
  ["email", "write to jane\uff20example.com today"],
  ["email", "write to jane.d\u200boe@example.com today"],
  ["phone", "call 555\u00a0123\u00a04567 now"],
  ["secrets", "key AKIA\u200bIOSFODNN7EXAMPLE here"],
  // The longest match the injection set allows: 54 words.
  ["regex-prompt-injection", `ok so ignore ${"you have been given ".repeat(6)}system ${"you have been given ".repeat(6)}instructions today`],
];
const PATTERN = "\\bforbidden[- ]word\\b|jul[a-z]+|\\d{3,}";
const PATTERN_TEXTS = ["Say forbidden-word now", "forbidden word", "julia and julie, order 12345 shipped", "no forbidden-words here, 12 is fine"];

function cases(): Array<{ name: string; text: string; detector: () => Filter["detector"] }> {
  const out: Array<{ name: string; text: string; detector: () => Filter["detector"] }> = [];
  for (const sample of [...CORPUS, ...HELD_OUT]) {
    const slug = sample.expect[0] ?? sample.near;
    if (slug && BUILTIN_SLUGS.includes(slug)) out.push({ name: slug, text: sample.text, detector: () => BUILTIN_DETECTORS.get(slug)! });
  }
  for (const [slug, text] of VARIANTS) out.push({ name: slug, text, detector: () => BUILTIN_DETECTORS.get(slug)! });
  for (const text of PATTERN_TEXTS) out.push({ name: "custom", text, detector: () => customDetector(PATTERN, "WORD", 0) });
  return out;
}

describe("streamed output: any chunking gets the whole answer's verdict", () => {
  const all = cases();
  const chunkings = (text: string, seed: number): string[][] => {
    const next = random(seed);
    return [[text], chunked(text, [1]), chunked(text, [2]), ...Array.from({ length: 6 }, (_, k) => randomChunks(text, next, k < 3 ? 4 : 12))];
  };

  test("every variant and pattern text has something to find in the whole answer", async () => {
    for (const [slug, text] of VARIANTS) expect((await wholeAnswer(text, [builtin(slug, "block")])).verdict.blocks.length, text).toBeGreaterThan(0);
  });

  test("block: the stream ends with the 403 exactly when the whole answer is blocked, before any finding's text goes out", async () => {
    const failures: string[] = [];
    for (const [i, c] of all.entries()) {
      const whole = await wholeAnswer(c.text, [filterOf(c.detector(), "block")]);
      const firstStart = Math.min(...whole.verdict.blocks.map((h) => h.finding.start));
      for (const chunks of chunkings(c.text, i)) {
        const { text, error, pipeline } = await run(chunks, [filterOf(c.detector(), "block")]);
        const blocked = whole.verdict.blocks.length > 0;
        const ok = blocked ? error?.error.status === 403 && text.length <= firstStart && c.text.startsWith(text) && actions(pipeline).includes("blocked") : error === undefined && text === c.text;
        if (!ok) failures.push(`${c.name} ${JSON.stringify(chunks)} → ${JSON.stringify(text)} ${error ? "blocked" : "passed"}`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("redact: the joined deltas are the whole answer's redaction, and the same findings are recorded", async () => {
    const failures: string[] = [];
    for (const [i, c] of all.entries()) {
      const whole = await wholeAnswer(c.text, [filterOf(c.detector(), "redact")]);
      const patterns = [...new Set(whole.verdict.redactions.map((h) => h.finding.pattern))].sort();
      for (const chunks of chunkings(c.text, i)) {
        const { text, pipeline } = await run(chunks, [filterOf(c.detector(), "redact")]);
        const recorded = [...new Set(pipeline.flatMap((p) => (p.data as { patterns: string[] }).patterns))].sort();
        if (text !== whole.redacted || JSON.stringify(recorded) !== JSON.stringify(patterns)) failures.push(`${c.name} ${JSON.stringify(chunks)} → ${JSON.stringify(text)} (whole: ${JSON.stringify(whole.redacted)})`);
      }
    }
    expect(failures).toEqual([]);
  });

  test("flag: nothing is held and the same findings are recorded", async () => {
    const failures: string[] = [];
    for (const [i, c] of all.entries()) {
      const whole = await wholeAnswer(c.text, [filterOf(c.detector(), "flag")]);
      const patterns = [...new Set(whole.verdict.flags.map((h) => h.finding.pattern))].sort();
      for (const chunks of chunkings(c.text, i)) {
        const { deltas, pipeline } = await run(chunks, [filterOf(c.detector(), "flag")]);
        const recorded = [...new Set(pipeline.flatMap((p) => (p.data as { patterns: string[] }).patterns))].sort();
        if (JSON.stringify(deltas) !== JSON.stringify(chunks) || JSON.stringify(recorded) !== JSON.stringify(patterns)) failures.push(`${c.name} ${JSON.stringify(chunks)} → ${JSON.stringify(recorded)}`);
      }
    }
    expect(failures).toEqual([]);
  });
});
