/** core/pipeline/stages/plugins.ts: pre / route / post / stream hooks in priority-then-id order. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { postPluginsStage, prePluginsStage, routePluginsStage } from "../../../../core/pipeline/stages/plugins.ts";
import { definePlugin } from "../../../../core/registry/define.ts";
import type { PluginContext, PluginModule } from "../../../../core/registry/plugin.ts";
import { Registry } from "../../../../core/registry/registry.ts";
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

function ctxWith(registry: Registry, requested: Array<{ id: string; enabled?: boolean; [k: string]: unknown }> = [], pluginDefaults = {}) {
  return testContext({
    deps: testDeps({ registry, config: testConfig({ plugins: pluginDefaults }) }),
    request: canonicalRequest({ plugins: requested }),
  });
}

describe("pre-plugins", () => {
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
    await prePluginsStage.run(ctx, stubNext(() => void trace.push("next")));
    expect(trace).toEqual(["first", "alpha", "zeta", "next"]);
  });

  test("a request can switch off a default-on plugin", async () => {
    let ran = false;
    const registry = registryOf({ id: "auto", description: "", enabledByDefault: true, hooks: { pre: () => void (ran = true) } });
    await prePluginsStage.run(ctxWith(registry, [{ id: "auto", enabled: false }]), stubNext());
    expect(ran).toBe(false);
  });

  test("an unknown plugin id is a 400, not a silent no-op", async () => {
    const next = stubNext();
    const error = (await prePluginsStage.run(ctxWith(registryOf(), [{ id: "ghost" }]), next).catch((e: unknown) => e)) as GatewayError;
    expect(error).toBeInstanceOf(GatewayError);
    expect(error.status).toBe(400);
    expect(error.message).toContain('"ghost"');
    expect(next.calls).toBe(0);
  });

  test("options are config defaults shallow-merged with the request entry (without id/enabled)", async () => {
    let seen: Record<string, unknown> | undefined;
    const registry = registryOf({ id: "opt", description: "", hooks: { pre: (c) => void (seen = c.options) } });
    const ctx = ctxWith(registry, [{ id: "opt", enabled: true, level: 2 }], { opt: { level: 1, mode: "x" } });
    await prePluginsStage.run(ctx, stubNext());
    expect(seen).toEqual({ level: 2, mode: "x" });
  });

  test("a pre hook may replace ctx.request and later hooks see the replacement", async () => {
    const seen: string[] = [];
    const registry = registryOf(
      { id: "a", description: "", hooks: { pre: (c) => void (c.request.model = "rewritten") } },
      { id: "b", description: "", hooks: { pre: (c) => void seen.push(String(c.request.model)) } },
    );
    const ctx = ctxWith(registry, [{ id: "a" }, { id: "b" }]);
    await prePluginsStage.run(ctx, stubNext());
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
    await prePluginsStage.run(ctx, stubNext());
    expect(seen).toEqual(["replaced"]);
    expect(ctx.request.model).toBe("replaced");
  });

  test("report() adds plugin entries to the pipeline log for service_metadata", async () => {
    const registry = registryOf({ id: "rep", description: "", hooks: { pre: (c) => c.report({ summary: "did it" }) } });
    const ctx = ctxWith(registry, [{ id: "rep" }]);
    await prePluginsStage.run(ctx, stubNext());
    expect(ctx.log.pipeline).toEqual([{ type: "plugin", name: "rep", summary: "did it" }]);
  });

  test("the helpers handed to hooks are the deps' helpers, never the internal context", async () => {
    let hookCtx: PluginContext | undefined;
    const registry = registryOf({ id: "h", description: "", hooks: { pre: (c) => void (hookCtx = c) } });
    const ctx = ctxWith(registry, [{ id: "h" }]);
    await prePluginsStage.run(ctx, stubNext());
    expect(hookCtx?.helpers).toBe(ctx.deps.helpers);
    expect(Object.keys(hookCtx ?? {}).sort()).toEqual(["helpers", "options", "report", "request"]);
  });
});

describe("route-plugins", () => {
  const a = modelConfig("acme/a");
  const b = modelConfig("acme/b");
  const candidates = () => [endpointOf(a, providerConfig("p1", [a])), endpointOf(a, providerConfig("p2", [a])), endpointOf(b, providerConfig("p1", [b]))];

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
    const ctx = ctxWith(registry, [{ id: "router" }]);
    ctx.candidates = candidates();
    const next = stubNext();
    await routePluginsStage.run(ctx, next);
    expect(offered).toEqual([
      { model: "acme/a", providerId: "p1" },
      { model: "acme/a", providerId: "p2" },
      { model: "acme/b", providerId: "p1" },
    ]);
    expect(ctx.candidates.map((c) => `${c.model.id}@${c.provider.id}`)).toEqual(["acme/b@p1", "acme/a@p1"]);
    expect(next.calls).toBe(1);
  });

  test("a router that leaves nothing is a 400", async () => {
    const registry = registryOf({ id: "empty", description: "", hooks: { route: () => [{ model: "x", providerId: "y" }] } });
    const ctx = ctxWith(registry, [{ id: "empty" }]);
    ctx.candidates = candidates();
    const next = stubNext();
    await expect(routePluginsStage.run(ctx, next)).rejects.toThrow('plugin "empty" left no endpoint');
    expect(next.calls).toBe(0);
  });
});

describe("post-plugins", () => {
  test("post hooks see the request as rewritten by pre hooks of other plugins", async () => {
    let seen: string | undefined;
    const registry = registryOf(
      { id: "a-rewrite", description: "", hooks: { pre: (c) => void (c.request = { ...c.request, model: "replaced" }) } },
      { id: "b-post", description: "", hooks: { post: (c, res) => ((seen = c.request.model), res) } },
    );
    const ctx = ctxWith(registry, [{ id: "a-rewrite" }, { id: "b-post" }]);
    await prePluginsStage.run(ctx, stubNext());
    await postPluginsStage.run(ctx, stubNext(() => void (ctx.outcome = { kind: "response", response: response() })));
    expect(seen).toBe("replaced");
  });

  test("rewrites the final response after next()", async () => {
    const registry = registryOf({
      id: "upper",
      description: "",
      hooks: { post: (_c, res) => ({ ...res, parts: [{ type: "text", text: "REWRITTEN" }] }) },
    });
    const ctx = ctxWith(registry, [{ id: "upper" }]);
    await postPluginsStage.run(ctx, stubNext(() => void (ctx.outcome = { kind: "response", response: response() })));
    expect(ctx.outcome).toMatchObject({ kind: "response", response: { parts: [{ type: "text", text: "REWRITTEN" }] } });
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
    await postPluginsStage.run(ctx, stubNext(() => void (ctx.outcome = { kind: "stream", events: replay(events) })));
    expect(ctx.outcome?.kind).toBe("stream");
    const out = await drain((ctx.outcome as { events: AsyncIterable<StreamEvent> }).events);
    expect(out.map((e) => e.type)).toEqual(["finish"]);
    expect(postCalled).toBe(false);
  });

  test("does nothing when there is no outcome, and does not run when next() fails", async () => {
    let calls = 0;
    const registry = registryOf({ id: "p", description: "", hooks: { post: (_c, r) => (calls++, r) } });
    await postPluginsStage.run(ctxWith(registry, [{ id: "p" }]), stubNext());
    await expect(postPluginsStage.run(ctxWith(registry, [{ id: "p" }]), () => Promise.reject(new Error("x")))).rejects.toThrow("x");
    expect(calls).toBe(0);
  });
});
