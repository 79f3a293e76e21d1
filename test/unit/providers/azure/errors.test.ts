/** providers/azure/errors.ts: Azure's error replies in the gateway's terms. */
import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../../core/errors.ts";
import { mapAzureError } from "../../../../providers/azure/errors.ts";
import { CHAT_PROMPT_REFUSAL, RESPONSES_PROMPT_REFUSAL, PROMPT_SAFE } from "../../../support/fake-azure/filters.ts";
import { RATE_LIMITED, SERVER_ERROR } from "../../../support/fake-azure/server.ts";

const make = (type: GatewayError["type"], message: string, init?: ConstructorParameters<typeof GatewayError>[2]) => new GatewayError(type, message, init);
const map = (status: number, body: unknown, headers: Record<string, string> = {}) => mapAzureError(status, body, new Headers(headers), make);

describe("mapAzureError", () => {
  test("a prompt the content filter refused (chat's innererror, Responses' content_filters): 400 content_policy_violation with the categories", () => {
    for (const body of [CHAT_PROMPT_REFUSAL, RESPONSES_PROMPT_REFUSAL]) {
      const error = map(400, body);
      expect([error.type, error.status, error.retryable]).toEqual(["content_policy_violation", 400, false]);
      expect(error.metadata).toMatchObject({ provider_code: "content_filter", provider_status: 400, filtered_categories: ["self_harm"] });
      expect(error.metadata?.provider_message).toContain("content management policy");
    }
  });

  test("recognised by its inner code alone, and with no category named", () => {
    const error = map(400, { error: { code: "BadRequest", message: "filtered", innererror: { code: "ResponsibleAIPolicyViolation", content_filter_result: PROMPT_SAFE } } });
    expect(error.type).toBe("content_policy_violation");
    expect(error.metadata?.filtered_categories).toEqual([]);
  });

  test("a deployment the resource does not have: a retryable 502, another endpoint may serve", () => {
    const error = map(404, { error: { code: "DeploymentNotFound", message: "The API deployment for this resource does not exist." } });
    expect([error.type, error.status, error.retryable, error.message]).toEqual(["provider_unavailable", 502, true, "Upstream provider has no deployment of this model"]);
  });

  test("the rest as OpenAI's: a 429 with retry-after-ms, a 500, a 401 that never says the key was the client's", () => {
    const limited = map(429, RATE_LIMITED.body, RATE_LIMITED.headers);
    expect([limited.type, limited.status, limited.retryAfter]).toEqual(["rate_limit_exceeded", 429, 2]);
    expect(map(429, RATE_LIMITED.body, { "retry-after-ms": "1500" }).retryAfter).toBe(1.5);
    const failed = map(500, SERVER_ERROR.body);
    expect([failed.type, failed.status, failed.retryable]).toEqual(["provider_unavailable", 502, true]);
    const denied = map(401, { error: { code: "401", message: "Access denied due to invalid subscription key az-key-123" } });
    expect([denied.type, denied.status]).toEqual(["provider_unavailable", 502]);
    expect(JSON.stringify([denied.message, denied.metadata])).not.toContain("az-key-123");
    const context = map(400, { error: { message: "This model's maximum context length is 128000 tokens.", type: "invalid_request_error", code: "context_length_exceeded" } });
    expect(context.type).toBe("context_length_exceeded");
  });
});
