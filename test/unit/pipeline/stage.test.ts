/** core/pipeline/stage.ts: the onion composer. */
import { describe, expect, test } from "bun:test";
import { compose, type Stage } from "../../../core/pipeline/stage.ts";
import { testContext } from "./helpers.ts";

function tracing(name: string, trace: string[]): Stage {
  return {
    name,
    async run(_ctx, next) {
      trace.push(`${name}:in`);
      await next();
      trace.push(`${name}:out`);
    },
  };
}

describe("compose", () => {
  test("runs code before next() outermost first and code after it in reverse", async () => {
    const trace: string[] = [];
    await compose([tracing("a", trace), tracing("b", trace), tracing("c", trace)])(testContext());
    expect(trace).toEqual(["a:in", "b:in", "c:in", "c:out", "b:out", "a:out"]);
  });

  test("every stage sees the same context and its writes", async () => {
    const ctx = testContext();
    const seen: unknown[] = [];
    await compose([
      { name: "w", run: async (c, next) => void ((c.log.by = "w"), await next()) },
      { name: "r", run: async (c, next) => void (seen.push(c, c.log.by), await next()) },
    ])(ctx);
    expect(seen).toEqual([ctx, "w"]);
  });

  test("a stage that does not call next() stops the inner stages", async () => {
    const trace: string[] = [];
    const stop: Stage = { name: "stop", run: async () => void trace.push("stop") };
    await compose([tracing("a", trace), stop, tracing("never", trace)])(testContext());
    expect(trace).toEqual(["a:in", "stop", "a:out"]);
  });

  test("an inner failure rejects through the outer stages, which can catch it", async () => {
    const trace: string[] = [];
    const failing: Stage = { name: "f", run: async () => { throw new Error("boom"); } };
    const catching: Stage = {
      name: "catch",
      async run(_ctx, next) {
        try {
          await next();
        } catch (error) {
          trace.push(`caught ${(error as Error).message}`);
        }
      },
    };
    await compose([catching, tracing("mid", trace), failing])(testContext());
    expect(trace).toEqual(["mid:in", "caught boom"]);
    await expect(compose([tracing("x", []), failing])(testContext())).rejects.toThrow("boom");
  });

  test("calling next() twice is refused", async () => {
    let innerRuns = 0;
    const twice: Stage = {
      name: "twice",
      async run(_ctx, next) {
        await next();
        await next();
      },
    };
    const inner: Stage = { name: "inner", run: async (_c, next) => void (innerRuns++, await next()) };
    await expect(compose([twice, inner])(testContext())).rejects.toThrow("stage twice called next() twice");
    expect(innerRuns).toBe(1);
  });

  test("the innermost next() resolves, and an empty pipeline is a no-op", async () => {
    let reached = false;
    await compose([{ name: "last", run: async (_c, next) => void (await next(), (reached = true)) }])(testContext());
    expect(reached).toBe(true);
    await expect(compose([])(testContext())).resolves.toBeUndefined();
  });

  test("the composed function is reusable across requests (no state leaks between runs)", async () => {
    const once: Stage = { name: "once", run: (_c, next) => next() };
    const run = compose([once, once]);
    await run(testContext());
    await expect(run(testContext())).resolves.toBeUndefined();
  });
});
