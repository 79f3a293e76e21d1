/** Third-party modules from the config's `extensions`: loaded by path, checked by brand and options. */
import { describe, expect, test } from "bun:test";
import { resolve } from "node:path";
import { buildRegistry } from "../../core/bootstrap.ts";
import { buildConfig } from "../../core/config/load.ts";
import { startTestGateway } from "../support/gateway.ts";

const root = resolve(import.meta.dir, "../..");
const configWith = (extensions: unknown[]) => buildConfig({ extensions } as never, {}, root);

describe("extensions", () => {
  test("the example plugin loads by path and runs when a request names it", async () => {
    const gw = await startTestGateway({ file: { extensions: [{ module: "./examples/plugins/shout.ts", options: { suffix: "!" } }] } });
    try {
      const json = { model: "simulator/small", messages: [{ role: "user", content: "hello" }] };
      const plain = (await (await gw.request("/chat/completions", { method: "POST", json })).json()) as { choices: Array<{ message: { content: string } }> };
      const res = await gw.request("/chat/completions", { method: "POST", json: { ...json, plugins: [{ id: "shout" }] }, headers: { "x-service-metadata": "enabled" } });
      const shouted = (await res.json()) as { choices: Array<{ message: { content: string } }>; service_metadata: { pipeline: Array<{ name: string }> } };
      expect(shouted.choices[0]!.message.content).toBe(plain.choices[0]!.message.content.toUpperCase() + "!");
      expect(shouted.service_metadata.pipeline[0]!.name).toBe("shout");
    } finally {
      await gw.close();
    }
  });

  test("the example provider adapter (public SDK entry only) serves a configured model through the gateway", async () => {
    const gw = await startTestGateway({
      file: {
        extensions: ["./examples/providers/echo.ts"],
        providers: [{ id: "echoes", adapter: "echo", base_url: "echo://local", models: [{ id: "echoes/echo-1", pricing: { prompt: 0.000001, completion: 0.000002 } }] }],
      },
    });
    try {
      const res = await gw.request("/chat/completions", { method: "POST", json: { model: "echoes/echo-1", messages: [{ role: "user", content: "say it back" }] } });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { model: string; choices: Array<{ message: { content: string } }>; usage: { cost: number } };
      expect(body.model).toBe("echoes/echo-1");
      expect(body.choices[0]!.message.content).toBe("say it back");
      expect(body.usage.cost).toBeCloseTo(3 * 0.000001 + 3 * 0.000002, 12);
    } finally {
      await gw.close();
    }
  });

  test("a module without the brand stops start-up with a clear message", async () => {
    await expect(buildRegistry(configWith(["./examples/plugins/not-a-plugin.ts"]))).rejects.toThrow(
      'extension "./examples/plugins/not-a-plugin.ts": not a gateway module',
    );
  });

  test("bad options stop start-up naming the option", async () => {
    await expect(buildRegistry(configWith([{ module: "./examples/plugins/shout.ts", options: { suffix: "way too long!!" } }]))).rejects.toThrow(
      /shout.ts": invalid options\.suffix/,
    );
  });

  test("server tool settings are checked at start-up: an unknown tool or a misspelt key stops it, naming the field", async () => {
    const withTools = (tools: unknown) => buildConfig({ tools } as never, {}, root);
    await expect(buildRegistry(withTools({ web_serch: { engine: "searxng" } }))).rejects.toThrow('"tools.web_serch": no server tool "service:web_serch"');
    await expect(buildRegistry(withTools({ web_search: { enigne: "searxng" } }))).rejects.toThrow(/tools\.web_search.*enigne/);
    expect(await buildRegistry(withTools({ web_search: { engine: "searxng", base_url: "http://127.0.0.1:9" } }))).toBeDefined();
  });

  test("a module's requires is checked once every extension is registered: a missing one stops start-up, named", async () => {
    await expect(buildRegistry(configWith(["./test/fixtures/extensions/requires.ts"]))).rejects.toThrow(
      'extension "./test/fixtures/extensions/requires.ts": plugin "needs-partner" requires plugin "partner", which is not registered',
    );
    // Listed after the module that needs it, the partner still counts.
    const registry = await buildRegistry(configWith(["./test/fixtures/extensions/requires.ts", "./test/fixtures/extensions/requires-partner.ts"]));
    expect(registry.plugin("needs-partner")).toBeDefined();
  });

  test("a missing module stops start-up", async () => {
    await expect(buildRegistry(configWith(["./examples/plugins/missing.ts"]))).rejects.toThrow("cannot be loaded");
  });

  test("an unexpected failure is a 500 without internals", async () => {
    const gw = await startTestGateway({ file: { extensions: ["./test/fixtures/extensions/throws.ts"] } });
    try {
      const json = { model: "simulator/small", messages: [{ role: "user", content: "x" }], plugins: [{ id: "explode" }] };
      const res = await gw.request("/chat/completions", { method: "POST", json });
      expect(res.status).toBe(500);
      const text = await res.text();
      expect(text).not.toContain("hunter2");
      expect(JSON.parse(text)).toEqual({ error: { code: 500, message: "Internal server error", metadata: { error_type: "server" } }, service_metadata: null, user_id: null });
    } finally {
      await gw.close();
    }
  });
});

describe("config plugins section", () => {
  const withPlugins = (plugins: Record<string, Record<string, unknown>>) =>
    buildConfig({ extensions: ["./examples/plugins/shout.ts"], plugins } as never, {}, root);

  test("defaults for a loaded plugin are checked against its options schema", async () => {
    await expect(buildRegistry(withPlugins({ shout: { suffix: "way too long!!" } }))).rejects.toThrow("config plugins.shout: invalid options.suffix");
    expect((await buildRegistry(withPlugins({ shout: { suffix: "?" } }))).plugin("shout")).toBeDefined();
  });

  test("defaults for a plugin that does not exist stop start-up instead of being ignored", async () => {
    await expect(buildRegistry(withPlugins({ nope: {} }))).rejects.toThrow('invalid config field "plugins.nope": no plugin with id "nope"');
  });
});
