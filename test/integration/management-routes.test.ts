/**
 * Every management route (keys, presets, containers, guardrails, beta admissions, usage, generations: README "API")
 * answers a request without a key 401 and one with an inference key 403, each in the route format's envelope, and
 * does so before it looks at the body or the query: a bad body or query gets the same refusal (401/403 precede 400).
 * The routes come from the gateway's own OpenAPI document, so a route added later is checked too.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../support/gateway.ts";

const MANAGEMENT = /^\/(keys|presets|containers|guardrails|beta|usage|generations)(\/|$)/;
/** A query and a body no management route accepts (unknown fields, wrong types). */
const BAD_QUERY = "?offset=-5&limit=zz&from=bad";
const BAD_BODY = { bogus: [1], name: 7 };

let gw: TestGateway;
let routes: Array<{ method: string; path: string }>;

beforeAll(async () => {
  gw = await startTestGateway();
  const spec = (await (await fetch(`${gw.origin}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
  routes = Object.entries(spec.paths).flatMap(([path, operations]) => {
    const relative = path.replace(/^\/api\/v1/, "");
    if (!MANAGEMENT.test(relative)) return [];
    return Object.keys(operations).map((method) => ({ method: method.toUpperCase(), path: relative.replace(/\{[^}]+\}/g, "x") }));
  });
});
afterAll(() => gw.close());

type Envelope = { error: { message: string; metadata: { error_type: string } } };

async function call(route: { method: string; path: string }, key: string | null | undefined): Promise<{ status: number; body: Envelope }> {
  const withBody = route.method === "POST" || route.method === "PATCH" || route.method === "PUT";
  const res = await gw.request(route.path + BAD_QUERY, { method: route.method, key, ...(withBody ? { json: BAD_BODY } : {}) });
  return { status: res.status, body: (await res.json()) as Envelope };
}

describe("management routes", () => {
  test("the OpenAPI document lists them all (keys, presets, containers, guardrails, beta, usage, generations)", () => {
    const groups = new Set(routes.map((route) => route.path.split("/")[1]));
    expect([...groups].sort()).toEqual(["beta", "containers", "generations", "guardrails", "keys", "presets", "usage"]);
    expect(routes.length).toBeGreaterThanOrEqual(37);
  });

  test("without a key: 401 before the body or query is looked at", async () => {
    for (const route of routes) {
      const { status, body } = await call(route, null);
      expect({ route, status, message: body.error.message, type: body.error.metadata.error_type }).toEqual({
        route,
        status: 401,
        message: "Missing authentication header",
        type: "authentication",
      });
    }
  });

  test("with an unknown key: 401", async () => {
    for (const route of routes) {
      const { status, body } = await call(route, "sk-gw-v1-not-a-key");
      expect({ route, status, type: body.error.metadata.error_type }).toEqual({ route, status: 401, type: "authentication" });
    }
  });

  test("with an inference key: 403 naming the rule, before the body or query is looked at", async () => {
    for (const route of routes) {
      const { status, body } = await call(route, undefined);
      expect({ route, status, message: body.error.message, type: body.error.metadata.error_type }).toEqual({
        route,
        status: 403,
        message: "Only management keys can perform this operation",
        type: "permission_denied",
      });
    }
  });

  test("with the management key: past the guard (the route's own answer, never 401 or 403)", async () => {
    for (const route of routes) {
      const { status } = await call(route, ADMIN_KEY);
      expect({ route, refused: status === 401 || status === 403 }).toEqual({ route, refused: false });
    }
  });
});
