/**
 * core/pipeline/stages/guardrails.ts with a fake store: without a guardrail the request passes untouched (next once,
 * its outcome returned, its failure propagated); with one, input filters block before `next`, redact the canonical
 * request, flag into the pipeline; output filters check the response on the way out, and a stream as it flows.
 */
import { describe, expect, test } from "bun:test";
import type { AppliedGuardrail, GuardrailRecord, Store } from "../../../../core/store/types.ts";
import { isGatewayError } from "../../../../core/errors.ts";
import { collect } from "../../../../core/model/collect.ts";
import { eventsFromResponse } from "../../../../core/model/replay.ts";
import { responseOutcome, streamOutcome } from "../../../../core/pipeline/outcome.ts";
import { guardrailsStage } from "../../../../core/pipeline/stages/guardrails.ts";
import { canonicalRequest, recordingLedger, response, stubNext, testContext, testDeps } from "../helpers.ts";
import { newGuardrail } from "../../../../core/store/types/guardrails.ts";

function record(patch: Partial<GuardrailRecord>): GuardrailRecord {
  return { ...newGuardrail("grd_1", "ws-1", "g"), createdAt: 0, updatedAt: 0, ...patch };
}

/** A context whose key has `applied` guardrails (a fresh deps each: the policy cache is per deps). */
function contextWith(applied: AppliedGuardrail[], text = "hi") {
  const store = { guardrails: { applying: async () => applied }, admissions: { admitted: async () => false } } as unknown as Store;
  // The generation a non-streamed answer settled is amended with what the output check found (none queued here).
  const ledger = Object.assign(recordingLedger(), { pendingGeneration: () => undefined });
  return testContext({ deps: testDeps({ store, ledger }), request: canonicalRequest({ messages: [{ role: "user", parts: [{ type: "text", text }] }] }) });
}

describe("guardrails stage", () => {
  test("no guardrail: next exactly once, its outcome returned, its failure propagated", async () => {
    expect(guardrailsStage.name).toBe("guardrails");
    const inner = responseOutcome(response());
    const next = stubNext(() => inner);
    expect(await guardrailsStage.run(contextWith([]), next)).toBe(inner);
    expect(next.calls).toBe(1);
    await expect(guardrailsStage.run(contextWith([]), () => Promise.reject(new Error("inner")))).rejects.toThrow("inner");
  });

  test("an input block is a 403 before anything runs, with the pipeline entry", async () => {
    const ctx = contextWith([{ record: record({ contentFilterBuiltins: [{ slug: "email", action: "block" }] }), scope: "key" }], "mail a@example.com");
    const next = stubNext();
    const failure = await guardrailsStage.run(ctx, next).catch((e: unknown) => e);
    expect(isGatewayError(failure) && failure.status).toBe(403);
    expect(next.calls).toBe(0);
    expect(ctx.pipeline).toEqual([expect.objectContaining({ type: "guardrail", name: "email_detection", guardrail_scope: "api-key" })]);
  });

  test("redact rewrites the canonical request; flag records only", async () => {
    const ctx = contextWith(
      [{ record: record({ contentFilterBuiltins: [{ slug: "email", action: "redact" }, { slug: "phone", action: "flag" }] }), scope: "workspace" }],
      "mail a@example.com or call 555-123-4567",
    );
    await guardrailsStage.run(ctx, stubNext());
    expect(ctx.request.messages[0]!.parts).toEqual([{ type: "text", text: "mail [EMAIL] or call 555-123-4567" }]);
    expect(ctx.pipeline.map((e) => [e.name, (e.data as { action: string }).action, e.guardrail_scope])).toEqual([
      ["email_detection", "redacted", "workspace"],
      ["phone_detection", "flagged", "workspace"],
    ]);
  });

  test("output filters: a response is checked on the way out; a stream as it flows", async () => {
    const applied = [{ record: record({ applyTo: "output", contentFilterBuiltins: [{ slug: "email", action: "redact" }] }), scope: "key" as const }];
    const answer = () => response({ parts: [{ type: "text", text: "write to b@example.com" }] });
    const whole = await guardrailsStage.run(contextWith(applied), stubNext(() => responseOutcome(answer())));
    expect(whole.kind === "response" && whole.response.parts).toEqual([{ type: "text", text: "write to [EMAIL]" }]);
    const streamed = await guardrailsStage.run(contextWith(applied), stubNext(() => streamOutcome(eventsFromResponse(answer()))));
    expect(streamed.kind).toBe("stream");
    if (streamed.kind === "stream") expect((await collect(streamed.events)).parts).toEqual([{ type: "text", text: "write to [EMAIL]" }]);
  });
});
