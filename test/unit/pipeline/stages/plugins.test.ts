/**
 * core/pipeline/stages/plugins.ts: the active plugins, their pre / post / stream hooks in priority-then-id order;
 * route hooks run inside each turn's routing (core/pipeline/turn/route.ts).
 */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { responseOutcome, streamOutcome, type StreamOutcome } from "../../../../core/pipeline/outcome.ts";
import { resolvePlugins } from "../../../../core/pipeline/plugins/active.ts";
import { pluginsStage } from "../../../../core/pipeline/stages/plugins.ts";
import { routeTurn } from "../../../../core/pipeline/turn/route.ts";
import { definePlugin } from "../../../../core/registry/define.ts";
import type { CanonicalRequest } from "../../../../core/model/request.ts";
import type { CanonicalResponse } from "../../../../core/model/response.ts";
import type { PluginContext, PluginModule } from "../../../../core/registry/plugin.ts";
import { Registry } from "../../../../core/registry/registry.ts";
import { Catalog } from "../../../../core/routing/catalog.ts";
import {
  canonicalRequest,
  drain,
  endpointOf,
  modelConfig,
  providerConfig,
  replay,
  response,
  stubNext,
  testConfig,
  testContext,
  testDeps,
  type StreamEvent,
} from "../helpers.ts";

function registryOf(...plugins: PluginModule[]): Registry {
  const registry = new Registry();
  for (const p of plugins) registry.register(definePlugin(p), `test plugin ${p.id}`);
  return registry;
}

function ctxWith(
  registry: Registry,
  requested: Array<{ id: string; enabled?: boolean; [k: string]: unknown }> = [],
  pluginDefaults = {},
  catalog = new Catalog(),
  request: Partial<CanonicalRequest> = {},
) {
  return testContext({
    deps: testDeps({ registry, catalog, config: testConfig({ plugins: pluginDefaults }) }),
    request: canonicalRequest({ plugins: requested, ...request }),
  });
}

describe("plugins stage: pre hooks", () => {
  test("runs default-on plugins and requested ones, in priority then id order, before next()", async () => {
    const trace: string[] = [];
    const pre = (id: string) => () => void trace.push(id);
    const registry = registryOf(
      { id: "zeta", description: "", priority: 0, enabledByDefault: true, hooks: { pre: pre("zeta") } },
      { id: "alpha", description: "", priority: 0, enabledByDefault: true, hooks: { pre: pre("alpha") } },
      { id: "first", description: "", priority: -5, hooks: { pre: pre("first") } },
      { id: "off", description: "", hooks: { pre: pre("off") } },
    );
    const ctx = ctxWith(registry, [{ id: "first" }]);
    await pluginsStage.run(ctx, stubNext(() => void trace.push("next")));
    expect(trace).toEqual(["first", "alpha", "zeta", "next"]);
  });

  test("a request can switch off a default-on plugin", async () => {
    let ran = false;
    const registry = registryOf({ id: "auto", description: "", enabledByDefault: true, hooks: { pre: () => void (ran = true) } });
    await pluginsStage.run(ctxWith(registry, [{ id: "auto", enabled: false }]), stubNext());
    expect(ran).toBe(false);
  });

  test("an unknown plugin id is a 400, not a silent no-op", async () => {
    const next = stubNext();
    const error = (await pluginsStage.run(ctxWith(registryOf(), [{ id: "ghost" }]), next).catch((e: unknown) => e)) as GatewayError;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.status).toBe(400);
    expect(error.message).toContain('"ghost"');
    expect(next.calls).toBe(0);
  });

  test("options are config defaults shallow-merged with the request entry (without id/enabled)", async () => {
    let seen: Record<string, unknown> | undefined;
    const registry = registryOf({ id: "opt", description: "", hooks: { pre: (c) => void (seen = c.options) } });
    const ctx = ctxWith(registry, [{ id: "opt", enabled: true, level: 2 }], { opt: { level: 1, mode: "x" } });
    await pluginsStage.run(ctx, stubNext());
    expect(seen).toEqual({ level: 2, mode: "x" });
  });

  test("a pre hook may replace ctx.request and later hooks see the replacement", async () => {
    const seen: string[] = [];
    const registry = registryOf(
      { id: "a", description: "", hooks: { pre: (c) => void (c.request.model = "rewritten") } },
      { id: "b", description: "", hooks: { pre: (c) => void seen.push(String(c.request.model)) } },
    );
    const ctx = ctxWith(registry, [{ id: "a" }, { id: "b" }]);
    await pluginsStage.run(ctx, stubNext());
    expect(seen).toEqual(["rewritten"]);
    expect(ctx.request.model).toBe("rewritten");
  });

  test("a pre hook may also assign a new request object; the pipeline and later hooks use it", async () => {
    const seen: string[] = [];
    const registry = registryOf(
      { id: "a", description: "", hooks: { pre: (c) => void (c.request = { ...c.request, model: "replaced" }) } },
      { id: "b", description: "", hooks: { pre: (c) => void seen.push(String(c.request.model)) } },
    );
    const ctx = ctxWith(registry, [{ id: "a" }, { id: "b" }]);
    await pluginsStage.run(ctx, stubNext());
    expect(seen).toEqual(["replaced"]);
    expect(ctx.request.model).toBe("replaced");
  });

  test("report() adds plugin entries to the pipeline log for service_metadata", async () => {
    const registry = registryOf({ id: "rep", description: "", hooks: { pre: (c) => c.report({ summary: "did it" }) } });
    const ctx = ctxWith(registry, [{ id: "rep" }]);
    await pluginsStage.run(ctx, stubNext());
    expect(ctx.pipeline).toEqual([{ type: "plugin", name: "rep", summary: "did it" }]);
  });

  test("the helpers handed to hooks are the deps' guarded helpers (fetch under the network policy), never the internal context", async () => {
    let hookCtx: PluginContext | undefined;
    const registry = registryOf({ id: "h", description: "", hooks: { pre: (c) => void (hookCtx = c) } });
    const ctx = ctxWith(registry, [{ id: "h" }]);
    await pluginsStage.run(ctx, stubNext());
    expect(hookCtx?.helpers).toBe(ctx.deps.guardedHelpers);
    expect(hookCtx?.helpers).not.toBe(ctx.deps.helpers);
    expect(Object.keys(hookCtx ?? {}).sort()).toEqual(["catalog", "charge", "complete", "explicit", "fetch", "helpers", "options", "report", "request", "reserveTurn", "route", "runTool", "signal", "state", "upstreamFetch", "workspace"]);
    // Nothing in it is (or leads to) the request context or the deps.
    for (const value of Object.values(hookCtx ?? {})) {
      expect(value).not.toBe(ctx);
      expect(value).not.toBe(ctx.deps);
    }
    expect(hookCtx?.signal).toBe(ctx.signal);
  });
});

describe("route hooks (inside each turn's routing)", () => {
  // Binary-exact prices: acme/a is cheapest at p1, so routing plans a@p1, a@p2, then the fallback model b@p1.
  const a1 = modelConfig("acme/a", { prompt: 0.25, completion: 0.25 });
  const a2 = modelConfig("acme/a", { prompt: 0.5, completion: 0.5 });
  const b = modelConfig("acme/b");
  function catalog(): Catalog {
    const c = new Catalog();
    c.add(endpointOf(a1, providerConfig("p1", [a1])));
    c.add(endpointOf(a2, providerConfig("p2", [a2])));
    c.add(endpointOf(b, providerConfig("p1", [b])));
    return c;
  }

  /** The plugins stage over an innermost step that routes one turn, as the agent loop's turn does. */
  async function routeThroughPlugins(ctx: ReturnType<typeof ctxWith>) {
    const next = stubNext(async () => {
      await routeTurn(ctx, ctx.request);
      return responseOutcome(response());
    });
    await pluginsStage.run(ctx, next);
    return next;
  }

  test("a router narrows and reorders the candidates", async () => {
    let offered: unknown;
    const registry = registryOf({
      id: "router",
      description: "",
      hooks: {
        route: (_c, list) => {
          offered = list;
          return [list[2]!, list[0]!];
        },
      },
    });
    const ctx = ctxWith(registry, [{ id: "router" }], {}, catalog(), { model: "acme/a", models: ["acme/b"] });
    const next = await routeThroughPlugins(ctx);
    expect(offered).toEqual([
      { model: "acme/a", providerId: "p1" },
      { model: "acme/a", providerId: "p2" },
      { model: "acme/b", providerId: "p1" },
    ]);
    expect(ctx.candidates.map((c) => `${c.model.id}@${c.provider.id}`)).toEqual(["acme/b@p1", "acme/a@p1"]);
    expect(next.calls).toBe(1);
  });

  test("the turn's route carries the narrowed candidates (what call-with-fallbacks walks)", async () => {
    const registry = registryOf({ id: "only-p2", description: "", hooks: { route: (_c, list) => list.filter((c) => c.providerId === "p2") } });
    const ctx = ctxWith(registry, [{ id: "only-p2" }], {}, catalog());
    ctx.plugins = resolvePlugins(ctx);
    const routed = await routeTurn(ctx, ctx.request);
    expect(routed.candidates.map((c) => `${c.model.id}@${c.provider.id}`)).toEqual(["acme/a@p2"]);
    expect(ctx.candidates).toBe(routed.candidates);
  });

  test("a router that leaves nothing is a 400", async () => {
    const registry = registryOf({ id: "empty", description: "", hooks: { route: () => [{ model: "x", providerId: "y" }] } });
    const ctx = ctxWith(registry, [{ id: "empty" }], {}, catalog());
    ctx.plugins = resolvePlugins(ctx);
    await expect(routeTurn(ctx, ctx.request)).rejects.toThrow('plugin "empty" left no endpoint');
    const error = (await routeTurn(ctx, ctx.request).catch((e: unknown) => e)) as GatewayError;
    expect([error.status, error.type]).toEqual([400, "invalid_request"]);
  });
});

describe("plugins stage: post and stream hooks", () => {
  test("post hooks see the request as rewritten by pre hooks of other plugins", async () => {
    let seen: string | undefined;
    const registry = registryOf(
      { id: "a-rewrite", description: "", hooks: { pre: (c) => void (c.request = { ...c.request, model: "replaced" }) } },
      { id: "b-post", description: "", hooks: { post: (c, res) => ((seen = c.request.model), res) } },
    );
    const ctx = ctxWith(registry, [{ id: "a-rewrite" }, { id: "b-post" }]);
    await pluginsStage.run(ctx, stubNext());
    expect(seen).toBe("replaced");
  });

  test("rewrites the final response after next()", async () => {
    const registry = registryOf({
      id: "upper",
      description: "",
      hooks: { post: (_c, res) => ({ ...res, parts: [{ type: "text", text: "REWRITTEN" }] }) },
    });
    const ctx = ctxWith(registry, [{ id: "upper" }]);
    const outcome = await pluginsStage.run(ctx, stubNext(() => responseOutcome(response())));
    expect(outcome).toMatchObject({ kind: "response", response: { parts: [{ type: "text", text: "REWRITTEN" }] } });
  });

  test("a post hook that returns no response is an error naming the plugin, not a TypeError further out", async () => {
    const registry = registryOf({ id: "forgetful", description: "", hooks: { post: () => undefined as never } });
    const ctx = ctxWith(registry, [{ id: "forgetful" }]);
    const error = await pluginsStage.run(ctx, stubNext(() => responseOutcome(response()))).catch((e: unknown) => e);
    expect((error as Error).message).toBe('plugin "forgetful" post() did not return an outcome (a response outcome, or a stream built with streamOutcome)');
  });

  test("post hooks apply in plugin order, each to the previous one's response", async () => {
    const registry = registryOf(
      { id: "b", description: "", hooks: { post: (_c, res) => ({ ...res, parts: [{ type: "text", text: `${textOf(res)}+b` }] }) } },
      { id: "a", description: "", hooks: { post: (_c, res) => ({ ...res, parts: [{ type: "text", text: `${textOf(res)}+a` }] }) } },
    );
    const outcome = await pluginsStage.run(ctxWith(registry, [{ id: "a" }, { id: "b" }]), stubNext());
    expect(outcome.kind === "response" && textOf(outcome.response)).toBe("ok+a+b");
  });

  test("transforms the event stream for streamed outcomes (and does not call post)", async () => {
    let postCalled = false;
    const registry = registryOf({
      id: "drop-debug",
      description: "",
      hooks: {
        post: (_c, res) => ((postCalled = true), res),
        async *stream(_c, events) {
          for await (const e of events) if (e.type !== "debug") yield e;
        },
      },
    });
    const ctx = ctxWith(registry, [{ id: "drop-debug" }]);
    const events: StreamEvent[] = [{ type: "debug", upstreamBody: {} }, { type: "finish", finish: { reason: "stop" } }];
    const outcome = await pluginsStage.run(ctx, stubNext(() => streamOutcome(replay(events))));
    expect(outcome.kind).toBe("stream");
    const out = await drain((outcome as StreamOutcome).events);
    expect(out.map((e) => e.type)).toEqual(["finish"]);
    expect(postCalled).toBe(false);
  });

  test("a transformed stream can still be observed by the stages outside it", async () => {
    const registry = registryOf({
      id: "upper",
      description: "",
      hooks: {
        async *stream(_c, events) {
          for await (const e of events) yield e.type === "text-delta" ? { ...e, delta: e.delta.toUpperCase() } : e;
        },
      },
    });
    const ctx = ctxWith(registry, [{ id: "upper" }]);
    const events: StreamEvent[] = [{ type: "text-delta", id: "t", delta: "hi" }, { type: "finish", finish: { reason: "stop" } }];
    const outcome = (await pluginsStage.run(ctx, stubNext(() => streamOutcome(replay(events))))) as StreamOutcome;
    const seen: StreamEvent[] = [];
    let ended = 0;
    outcome.observe({ event: (e) => (seen.push(e), e), fail: () => {}, end: () => void ended++ });
    await drain(outcome.events);
    expect(seen[0]).toEqual({ type: "text-delta", id: "t", delta: "HI" });
    expect(ended).toBe(1);
  });

  test("with no active plugin the inner outcome is handed on untouched", async () => {
    const inner = streamOutcome(replay<StreamEvent>([]));
    const ctx = ctxWith(registryOf({ id: "off", description: "", hooks: { stream: (_c, e) => e } }));
    expect(await pluginsStage.run(ctx, stubNext(() => inner))).toBe(inner);
    expect(ctx.plugins).toEqual([]);
  });

  test("does not run when next() fails", async () => {
    let calls = 0;
    const registry = registryOf({ id: "p", description: "", hooks: { post: (_c, r) => (calls++, r) } });
    await expect(pluginsStage.run(ctxWith(registry, [{ id: "p" }]), () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect(calls).toBe(0);
  });
});

function textOf(res: CanonicalResponse): string {
  return res.parts.map((p) => (p.type === "text" ? p.text : "")).join("");
}
