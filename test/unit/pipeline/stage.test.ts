/** core/pipeline/stage.ts: the onion composer. */
import { describe, expect, test } from "bun:test";
import { responseOutcome, type Outcome } from "../../../core/pipeline/outcome.ts";
import { compose, type Stage } from "../../../core/pipeline/stage.ts";
import { response, testContext } from "./helpers.ts";

function tracing(name: string, trace: string[]): Stage {
  return {
    name,
    async run(_ctx, next) {
      trace.push(`${name}:in`);
      const outcome = await next();
      trace.push(`${name}:out`);
      return outcome;
    },
  };
}

/** The innermost stage: ends the request in an outcome without calling next(). */
function ending(outcome: Outcome = responseOutcome(response()), trace?: string[]): Stage {
  return { name: "end", run: async () => (trace?.push("end"), outcome) };
}

describe("compose", () => {
  test("runs code before next() outermost first and code after it in reverse", async () => {
    const trace: string[] = [];
    await compose([tracing("a", trace), tracing("b", trace), tracing("c", trace), ending(undefined, trace)])(testContext());
    expect(trace).toEqual(["a:in", "b:in", "c:in", "end", "c:out", "b:out", "a:out"]);
  });

  test("resolves with the innermost stage's outcome, which an outer stage may replace on the way out", async () => {
    const inner = responseOutcome(response({ id: "inner" }));
    await expect(compose([tracing("a", []), ending(inner)])(testContext())).resolves.toBe(inner);
    const replaced = responseOutcome(response({ id: "replaced" }));
    const replacing: Stage = { name: "replace", run: async (_c, next) => (await next(), replaced) };
    await expect(compose([replacing, ending(inner)])(testContext())).resolves.toBe(replaced);
  });

  test("every stage sees the same context and its writes", async () => {
    const ctx = testContext();
    const seen: unknown[] = [];
    await compose([
      { name: "w", run: (c, next) => ((c.log.by = "w"), next()) },
      { name: "r", run: (c, next) => (seen.push(c, c.log.by), next()) },
      ending(),
    ])(ctx);
    expect(seen).toEqual([ctx, "w"]);
  });

  test("a stage that does not call next() stops the inner stages", async () => {
    const trace: string[] = [];
    const stop: Stage = { name: "stop", run: async () => (trace.push("stop"), responseOutcome(response())) };
    await compose([tracing("a", trace), stop, tracing("never", trace), ending(undefined, trace)])(testContext());
    expect(trace).toEqual(["a:in", "stop", "a:out"]);
  });

  test("an inner failure rejects through the outer stages, which can catch it", async () => {
    const trace: string[] = [];
    const failing: Stage = {
      name: "f",
      run: async () => {
        throw new Error("boom");
      },
    };
    const recovered = responseOutcome(response({ id: "recovered" }));
    const catching: Stage = {
      name: "catch",
      async run(_ctx, next) {
        try {
          return await next();
        } catch (error) {
          trace.push(`caught ${(error as Error).message}`);
          return recovered;
        }
      },
    };
    await expect(compose([catching, tracing("mid", trace), failing])(testContext())).resolves.toBe(recovered);
    expect(trace).toEqual(["mid:in", "caught boom"]);
    await expect(compose([tracing("x", []), failing])(testContext())).rejects.toThrow("boom");
  });

  test("calling next() twice is refused", async () => {
    let innerRuns = 0;
    const twice: Stage = {
      name: "twice",
      async run(_ctx, next) {
        await next();
        return next();
      },
    };
    const inner: Stage = { name: "inner", run: async () => (innerRuns++, responseOutcome(response())) };
    await expect(compose([twice, inner])(testContext())).rejects.toThrow("stage twice called next() twice");
    expect(innerRuns).toBe(1);
  });

  test("a pipeline whose last stage calls next() ends without an outcome: that rejects (a programming error)", async () => {
    let reached = false;
    const last: Stage = { name: "last", run: (_c, next) => ((reached = true), next()) };
    await expect(compose([last])(testContext())).rejects.toThrow("the pipeline ended without an outcome");
    expect(reached).toBe(true);
    await expect(compose([])(testContext())).rejects.toThrow("the pipeline ended without an outcome");
  });

  test("the composed function is reusable across requests (no state leaks between runs)", async () => {
    const once: Stage = { name: "once", run: (_c, next) => next() };
    const run = compose([once, once, ending()]);
    await run(testContext());
    await expect(run(testContext())).resolves.toMatchObject({ kind: "response" });
  });
});
