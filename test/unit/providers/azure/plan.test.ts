/** providers/azure/plan.ts: the target the OpenAI translation gets, per URL style, API and credential. */
import { describe, expect, test } from "bun:test";
import { planOf } from "../../../../providers/azure/plan.ts";
import { target } from "../helpers.ts";

const ENTRA = { tenant_id: "t", client_id: "c", client_secret: "s" };

describe("planOf", () => {
  test("v1 with the api key: the base URL as given, the key in api-key, no bearer key", () => {
    const plan = planOf(target({ baseUrl: "https://r.openai.azure.com/openai/v1/", apiKey: "k", upstreamModel: "dep", headers: { "x-ms-client-request-id": "1" } }));
    expect(plan.api).toBe("chat");
    expect(plan.inner).toMatchObject({ baseUrl: "https://r.openai.azure.com/openai/v1", apiKey: undefined, upstreamModel: "dep" });
    expect(plan.inner.headers).toEqual({ "api-key": "k", "x-ms-client-request-id": "1" });
    expect(plan.query).toBeUndefined();
    expect(plan.tokens).toBeUndefined();
  });

  test("deployments style: chat under /deployments/{name}, Responses at the root, api-version as the query", () => {
    const options = { api_version: "2024-10-21" };
    const chat = planOf(target({ baseUrl: "https://r.openai.azure.com/openai", upstreamModel: "my dep", options }));
    expect(chat.inner.baseUrl).toBe("https://r.openai.azure.com/openai/deployments/my%20dep");
    expect(chat.query).toBe("api-version=2024-10-21");
    const responses = planOf(target({ baseUrl: "https://r.openai.azure.com/openai", upstreamModel: "dep", options: { ...options, api: "responses" } }));
    expect([responses.api, responses.inner.baseUrl]).toEqual(["responses", "https://r.openai.azure.com/openai"]);
  });

  test("Entra: no api-key header; one token source per credential, shared by the provider's models; worked out once per target", () => {
    const options = { entra: ENTRA };
    const a = target({ apiKey: undefined, options });
    const b = target({ apiKey: undefined, options, upstreamModel: "other" });
    expect(planOf(a).inner.headers).toEqual({});
    expect(planOf(a).tokens).toBeDefined();
    expect(planOf(a).tokens).toBe(planOf(b).tokens!);
    expect(planOf(a)).toBe(planOf(a));
    expect(planOf(target({ apiKey: undefined, options: { entra: { ...ENTRA } } })).tokens).not.toBe(planOf(a).tokens!);
  });
});
