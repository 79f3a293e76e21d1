/**
 * core/pipeline/stages/agent-loop.ts: the innermost stage runs the request's model turn (core/pipeline/turn/turn.ts)
 * instead of calling next(); the active plugins' `around` hooks wrap each turn.
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import type { CreditHold } from "../../../../core/limits/credits.ts";
import type { Outcome } from "../../../../core/pipeline/outcome.ts";
import { accountingStage } from "../../../../core/pipeline/stages/accounting.ts";
import { agentLoopStage } from "../../../../core/pipeline/stages/agent-loop.ts";
import { pluginsStage } from "../../../../core/pipeline/stages/plugins.ts";
import { compose } from "../../../../core/pipeline/stage.ts";
import { definePlugin, type RegisteredProvider } from "../../../../core/registry/define.ts";
import type { PluginModule } from "../../../../core/registry/plugin.ts";
import { Registry } from "../../../../core/registry/registry.ts";
import { Catalog } from "../../../../core/routing/catalog.ts";
import {
  canonicalRequest,
  endpointOf,
  fakeAdapter,
  inferencePrincipal,
  modelConfig,
  openBill,
  providerConfig,
  response,
  stubNext,
  testContext,
  testDeps,
  usageOf,
  type TestContext,
} from "../helpers.ts";

// Binary-exact prices so expected costs are exact.
const model = modelConfig("acme/a", { prompt: 0.5, completion: 2 });

function setup(adapter: RegisteredProvider, ...plugins: PluginModule[]): TestContext {
  const catalog = new Catalog();
  catalog.add(endpointOf(model, providerConfig("p0", [model]), adapter));
  const registry = new Registry();
  for (const p of plugins) registry.register(definePlugin(p), `test plugin ${p.id}`);
  return testContext({ deps: testDeps({ catalog, registry }), request: canonicalRequest({ plugins: plugins.map((p) => ({ id: p.id })) }) });
}

/** The plugins stage (which resolves the active plugins) over the agent loop, as in the pipeline. */
const run = (ctx: TestContext): Promise<Outcome> => compose([pluginsStage, agentLoopStage])(ctx);

describe("agent-loop stage", () => {
  test("runs the model turn (never next()): routed, called, stamped and metered", async () => {
    const adapter = fakeAdapter({ generate: async () => response({ usage: usageOf(4, 3) }) });
    const ctx = setup(adapter);
    const next = stubNext();
    const outcome = await agentLoopStage.run(ctx, next);
    expect(next.calls).toBe(0);
    expect(adapter.calls).toHaveLength(1);
    expect(outcome.kind === "response" && [outcome.response.id, outcome.response.cost?.total]).toEqual(["gen-test", 8]);
    expect(ctx.served?.provider.id).toBe("p0");
    expect(ctx.candidates.map((c) => c.provider.id)).toEqual(["p0"]);
    expect([ctx.bill.turns, ctx.bill.finishedTurns, ctx.bill.turnCost.total]).toEqual([1, 1, 8]);
  });

  test("the turn's failure propagates as it is", async () => {
    const failure = new GatewayError("context_length_exceeded", "too long");
    const ctx = setup(fakeAdapter({ generate: () => Promise.reject(failure) }));
    expect(await agentLoopStage.run(ctx, stubNext()).catch((e: unknown) => e)).toBe(failure);
  });

  test("around hooks wrap the turn, the first plugin outermost", async () => {
    const trace: string[] = [];
    const wrapping = (id: string, priority: number): PluginModule => ({
      id,
      description: "",
      priority,
      hooks: {
        around: async (_c, turn) => {
          trace.push(`${id}:in`);
          const outcome = await turn(_c.request);
          trace.push(`${id}:out`);
          return outcome;
        },
      },
    });
    const adapter = fakeAdapter({ generate: async () => (trace.push("model"), response()) });
    const ctx = setup(adapter, wrapping("inner", 2), wrapping("outer", 1));
    await run(ctx);
    expect(trace).toEqual(["outer:in", "inner:in", "model", "inner:out", "outer:out"]);
  });

  test("an around hook may call the turn twice: each turn is metered and the later one extends the credit hold", async () => {
    const extended: number[] = [];
    const hold: CreditHold = { amount: 1, extend: async (extra) => (extended.push(extra), true), commit: async () => {}, release: async () => {} };
    const twice: PluginModule = {
      id: "twice",
      description: "",
      hooks: {
        around: async (c, turn) => {
          await turn(c.request);
          return turn({ ...c.request, maxTokens: 10 });
        },
      },
    };
    const adapter = fakeAdapter({ generate: async () => response({ usage: usageOf(4, 3) }) });
    const ctx = setup(adapter, twice);
    ctx.principal = { ...inferencePrincipal, record: { ...inferencePrincipal.record!, limit: 100, limitReset: "daily" } };
    openBill(ctx, hold);
    const outcome = await run(ctx);
    expect(adapter.calls).toHaveLength(2);
    expect([ctx.bill.turns, ctx.bill.finishedTurns, ctx.bill.turnCost.total, ctx.bill.usage.output.total]).toEqual([2, 2, 16, 6]);
    expect(ctx.bill.compound).toBe(true);
    // The second turn's worst case: its prompt and the 10 output tokens it allows.
    expect(extended).toHaveLength(1);
    expect(extended[0]).toBeGreaterThan(10 * 2);
    expect(outcome.kind).toBe("response");
  });

  test("an around hook may route first and reuse the decision: the turn does not route again", async () => {
    let routed = 0;
    let offered: string[] = [];
    const reuse: PluginModule = {
      id: "reuse",
      description: "",
      hooks: {
        route: (_c, list) => (routed++, list),
        around: async (c, turn) => {
          const decision = await c.route(c.request);
          offered = decision.endpoints.map((e) => `${e.model}@${e.provider}`);
          return turn(c.request, { route: decision });
        },
      },
    };
    const adapter = fakeAdapter();
    const ctx = setup(adapter, reuse);
    await run(ctx);
    expect(offered).toEqual(["acme/a@p0"]);
    expect(routed).toBe(1);
    expect(adapter.calls).toHaveLength(1);
    expect(ctx.served?.provider.id).toBe("p0");
  });

  test("a decision an outer around hook passes reaches the model turn through an inner around hook", async () => {
    let routed = 0;
    const outer: PluginModule = {
      id: "a-outer",
      description: "",
      hooks: {
        route: (_c, list) => (routed++, list),
        around: async (c, turn) => turn(c.request, { route: await c.route(c.request) }),
      },
    };
    const seen: string[] = [];
    const inner: PluginModule = { id: "b-inner", description: "", hooks: { around: (c, turn) => (seen.push(String(c.request.model)), turn(c.request)) } };
    const adapter = fakeAdapter();
    const ctx = setup(adapter, outer, inner);
    await run(ctx);
    expect(seen).toEqual(["acme/a"]);
    expect(routed).toBe(1);
    expect(adapter.calls).toHaveLength(1);
  });

  test("a streamed turn a plugin drops unread is abandoned when the request settles: upstream stopped, bill intact", async () => {
    const closed: boolean[] = [];
    const adapter = fakeAdapter({
      stream: async () => {
        const index = closed.push(false) - 1;
        return (async function* () {
          try {
            yield { type: "start" as const, id: "u", model: "acme/a", provider: "p0", created: 1 };
            yield { type: "text-delta" as const, id: "t", delta: "x" };
            yield { type: "usage" as const, usage: usageOf(4, 3) };
            yield { type: "finish" as const, finish: { reason: "stop" as const } };
          } finally {
            closed[index] = true;
          }
        })();
      },
    });
    const dropper: PluginModule = {
      id: "dropper",
      description: "",
      hooks: {
        around: async (c, turn) => {
          await turn(c.request); // dropped unread
          return turn(c.request);
        },
      },
    };
    const ctx = setup(adapter, dropper);
    ctx.request.stream = true;
    const outcome = await compose([accountingStage, pluginsStage, agentLoopStage])(ctx);
    if (outcome.kind !== "stream") throw new Error("expected a stream");
    for await (const _ of outcome.events);
    expect(closed).toEqual([true, true]);
    expect(ctx.bill.finishedTurns).toBe(2);
    // The ledger has the request's own ending, not the dropped turn's "aborted"; the dropped turn produced "x"
    // before its usage was reported, so its output is estimated (1 token) and billed with the read turn's 3.
    expect(ctx.deps.ledger.records.map((r) => [r.finishReason, r.status, r.outputTokens])).toEqual([["stop", 200, 4]]);
  });
});
