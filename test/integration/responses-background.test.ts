/**
 * `background: true` asks for a response fetched later through GET /responses/{id}; the gateway stores
 * no responses, so it refuses the request (400 naming why) rather than answering synchronously a client that expects
 * a `queued` response it will poll. `background: false` is an ordinary request.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { expectError } from "../support/envelope.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

let gw: TestGateway;
let client: OpenAI;

beforeAll(async () => {
  gw = await startTestGateway({ file: { simulator: true } });
  client = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0 });
});
afterAll(() => gw.close());

describe("background mode", () => {
  test("background: true → 400 invalid_request saying no response is stored to poll", async () => {
    const error = await client.responses.create({ model: "simulator/small", input: "hi", background: true }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(OpenAI.BadRequestError);
    const body = (error as InstanceType<typeof OpenAI.BadRequestError>).error as { code: number; message: string; metadata?: Record<string, unknown> };
    expect(body.code).toBe(400);
    expect(body.message).toContain("background: true is not supported: the gateway stores no responses");
    expect(body.metadata).toMatchObject({ error_type: "invalid_request", param: "background" });
  });

  test("streamed, the refusal comes before any event", async () => {
    const res = await gw.request("/responses", { method: "POST", json: { model: "simulator/small", input: "hi", background: true, stream: true } });
    const body = await expectError(res, 400, "background");
    expect(body.error.metadata.error_type).toBe("invalid_request");
  });

  test("background: false is answered as usual", async () => {
    const result = await client.responses.create({ model: "simulator/small", input: "hi", background: false });
    expect(result.status).toBe("completed");
  });
});
