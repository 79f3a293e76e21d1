/** The container tools' request entries: parameter bounds (400s naming the field), formats, and engine "native". */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import type { InboundFormat } from "../../../../core/model/request.ts";
import { Registry } from "../../../../core/registry/registry.ts";
import type { CatalogView } from "../../../../core/routing/catalog-view.ts";
import { declaredTools, modelTools } from "../../../../core/tools/declared.ts";
import applyPatch from "../../../../tools/apply-patch/index.ts";
import bash from "../../../../tools/bash/index.ts";
import files from "../../../../tools/files/index.ts";
import { containerRequest } from "../../../../tools/container-kit/container-parameters.ts";
import shell from "../../../../tools/shell/index.ts";
import { canonicalRequest, fakeHelpers } from "../../pipeline/helpers.ts";

function env() {
  const registry = new Registry();
  for (const tool of [bash, shell, files, applyPatch]) registry.register(tool, "test");
  return { registry, settings: {}, catalog: {} as CatalogView, helpers: fakeHelpers() };
}

const request = (type: string, parameters?: Record<string, unknown>, format: InboundFormat = "messages") =>
  canonicalRequest({ format, tools: [{ kind: "server", type, ...(parameters ? { parameters } : {}) } as never] });

function refusal(type: string, parameters: Record<string, unknown>): string {
  try {
    declaredTools(request(type, parameters), env());
  } catch (error) {
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).status).toBe(400);
    return (error as GatewayError).message;
  }
  throw new Error(`expected a 400 for ${type} ${JSON.stringify(parameters)}`);
}

const accepted = (type: string, parameters: Record<string, unknown>) => expect(declaredTools(request(type, parameters), env())?.list).toHaveLength(1);

describe("parameters", () => {
  test.each(["service:bash", "service:shell", "service:apply_patch"])("%s: engine, environment and sleep_after_seconds within bounds", (type) => {
    for (const engine of ["service", "auto", "native"]) accepted(type, { engine });
    accepted(type, { environment: { type: "container_auto" }, sleep_after_seconds: 1 });
    accepted(type, { environment: { type: "container_reference", container_id: "sess_abc" }, sleep_after_seconds: 2_592_000 });
    expect(refusal(type, { engine: "openrouter" })).toContain("tools[0].parameters.engine");
    expect(refusal(type, { sleep_after_seconds: 0 })).toContain("tools[0].parameters.sleep_after_seconds");
    expect(refusal(type, { sleep_after_seconds: 2_592_001 })).toContain("tools[0].parameters.sleep_after_seconds");
    expect(refusal(type, { sleep_after_seconds: 1.5 })).toContain("sleep_after_seconds");
    expect(refusal(type, { environment: { type: "container_reference" } })).toContain("tools[0].parameters.environment");
    expect(refusal(type, { environment: { type: "local" } })).toContain("tools[0].parameters.environment");
    expect(refusal(type, { environment: { type: "container_auto", image: "x" } })).toContain("environment");
    expect(refusal(type, { timeout_ms: 5 })).toBe('tools[0].parameters.timeout_ms: unknown parameter "timeout_ms"');
  });

  test("files takes no engine (it has no client-side form) but the same container parameters", () => {
    accepted("service:files", { environment: { type: "container_reference", container_id: "ctr_1" }, sleep_after_seconds: 60 });
    expect(refusal("service:files", { engine: "native" })).toBe('tools[0].parameters.engine: unknown parameter "engine"');
  });

  test.each(["chat", "responses", "messages"] as const)("all four are accepted on %s (every inbound format)", (format) => {
    for (const type of ["service:bash", "service:shell", "service:files", "service:apply_patch"]) {
      expect(declaredTools(request(type, undefined, format), env())?.list).toHaveLength(1);
    }
  });

  test("parameters become the container request; restart only when asked", () => {
    expect(containerRequest({})).toEqual({});
    expect(containerRequest({ engine: "service", environment: { type: "container_reference", container_id: "c1" }, sleep_after_seconds: 30 }, true)).toEqual({
      environment: { type: "container_reference", container_id: "c1" },
      sleepAfterSeconds: 30,
      restart: true,
    });
  });
});

describe("engine native: the call goes back to the client", () => {
  test.each(["service:bash", "service:shell", "service:apply_patch"])("%s native is a plain function the loop does not run", (type) => {
    const req = request(type, { engine: "native" });
    const declared = declaredTools(req, env())!;
    expect(declared.byModelName.size).toBe(0); // not the loop's to run: a call ends the turn as a client call
    const offered = modelTools(req, declared, new Set());
    expect(offered).toHaveLength(1);
    expect(offered[0]).toMatchObject({ kind: "function", name: type.slice("service:".length) });
  });

  test("engine service (and auto) is run by the gateway", () => {
    for (const engine of ["service", "auto"]) {
      const declared = declaredTools(request("service:bash", { engine }), env())!;
      expect([...declared.byModelName.keys()]).toEqual(["bash"]);
    }
  });
});
