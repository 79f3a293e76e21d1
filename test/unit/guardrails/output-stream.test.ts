/**
 * Output guardrails on a stream (core/guardrails/output-stream.ts): text checked as it arrives; a block ends the
 * stream with the in-band error before the delta that completes a finding goes out; a redaction holds back only as
 * much text as a finding may still span and releases the same text a whole-answer redaction gives, however the
 * answer is chunked; without a redact filter nothing is held (the first token is not delayed).
 */
import { describe, expect, test } from "bun:test";
import { BUILTIN_DETECTORS } from "../../../core/guardrails/detectors/builtins.ts";
import { customDetector } from "../../../core/guardrails/detectors/custom.ts";
import { guardStream } from "../../../core/guardrails/output-stream.ts";
import type { Filter } from "../../../core/guardrails/policy.ts";
import { isGatewayError } from "../../../core/errors.ts";
import type { StreamEvent } from "../../../core/model/events.ts";
import type { PipelineEntry } from "../../../core/pipeline/context.ts";
import type { GuardrailAction } from "../../../core/store/types.ts";

const guardrail = { id: "grd_1", name: "out", scope: "api-key" as const };
const builtin = (slug: string, action: GuardrailAction): Filter => ({ guardrail, detector: BUILTIN_DETECTORS.get(slug)!, action, scanScope: "all_messages", input: false, output: true });
const custom = (pattern: string, action: GuardrailAction, label?: string): Filter => ({ guardrail, detector: customDetector(pattern, label, 0), action, scanScope: "all_messages", input: false, output: true });

async function* source(chunks: readonly string[], extra: StreamEvent[] = []): AsyncIterable<StreamEvent> {
  yield { type: "start", id: "r", model: "m", provider: "p", created: 0 };
  yield { type: "text-start", id: "t" };
  for (const delta of chunks) yield { type: "text-delta", id: "t", delta };
  yield { type: "text-end", id: "t" };
  yield* extra;
  yield { type: "finish", finish: { reason: "stop" } };
}

async function run(chunks: readonly string[], filters: Filter[], extra: StreamEvent[] = []) {
  const pipeline: PipelineEntry[] = [];
  const out: StreamEvent[] = [];
  for await (const event of guardStream(source(chunks, extra), filters, { pipeline })) out.push(event);
  const deltas = out.flatMap((e) => (e.type === "text-delta" ? [e.delta] : []));
  return { out, deltas, text: deltas.join(""), pipeline, error: out.find((e) => e.type === "error") };
}

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

describe("streamed output: block", () => {
  test("a secret split across deltas ends the stream with a 403 before its second half goes out", async () => {
    const { deltas, error, pipeline, out } = await run(["The key is AKIA", "IOSFODNN7EXAMPLE", " and more"], [builtin("secrets", "block")]);
    expect(deltas).toEqual(["The key is AKIA"]);
    expect(error?.type).toBe("error");
    const failure = (error as Extract<StreamEvent, { type: "error" }>).error;
    expect(isGatewayError(failure) && failure.status).toBe(403);
    expect(failure.message).toBe("Response blocked by content filter: SECRET");
    expect(failure.metadata).toMatchObject({ patterns: ["aws_access_key_id"], side: "output", guardrail_id: "grd_1" });
    expect(pipeline).toEqual([expect.objectContaining({ type: "guardrail", name: "secrets_detection", data: expect.objectContaining({ action: "blocked", side: "output" }) })]);
    expect(out.at(-1)?.type).toBe("error");
  });

  test("without a redact filter nothing is held back: each delta goes out as it came", async () => {
    const chunks = ["Hello", " there", ", nothing to see."];
    const { out } = await run(chunks, [builtin("email", "block"), builtin("secrets", "flag")]);
    expect(out.filter((e) => e.type === "text-delta").map((e) => (e as { delta: string }).delta)).toEqual(chunks);
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
    const pipeline: PipelineEntry[] = [];
    const events = guardStream(source(["Hello there general ", "Kenobi. ", "mail me"]), [builtin("email", "redact")], { pipeline })[Symbol.asyncIterator]();
    const seen: string[] = [];
    for (let e = await events.next(); !e.done; e = await events.next()) if (e.value.type === "text-delta") seen.push(e.value.delta);
    // Email: only the last token is held; each delta releases everything before it.
    expect(seen).toEqual(["Hello there general ", "Kenobi. ", "mail ", "me"]);
  });

  test("an operator's pattern with an unbounded repeat holds back only while a match is in progress", async () => {
    const { deltas, text } = await run(["order 12", "345", "678 shipped", " today"], [custom("\\d{3,}", "redact")]);
    expect(text).toBe("order [REDACTED] shipped today");
    expect(deltas[0]).toBe("order ");
    expect(deltas.join("|")).not.toMatch(/\d{3}/);
  });

  test("findings are reported in the pipeline before the finish goes out", async () => {
    const { pipeline, out } = await run(["mail jane@example.com now"], [builtin("email", "redact"), builtin("phone", "flag")]);
    expect(pipeline.map((p) => (p.data as { action: string }).action)).toEqual(["redacted"]);
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
    expect(pipeline.map((p) => (p.data as { action: string }).action)).toEqual(["flagged"]);
  });
});
