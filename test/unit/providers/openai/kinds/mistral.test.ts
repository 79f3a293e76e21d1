/** providers/openai/kinds/mistral.ts: the nine-character tool-call ids and the error dialect. */
import { expect, test } from "bun:test";
import { GatewayError } from "../../../../../core/errors.ts";
import { mapMistralError, mistralToolId } from "../../../../../providers/openai/kinds/mistral.ts";

test("an id is mapped to nine letters and digits, the same each time; a valid one is kept; different ids differ", () => {
  const ids = ["call_0fypS1hVXk2Lw8Qz", "toolu_01A09q90qw90lq917835lq9", "call_1", "turn1_0", "x"];
  const mapped = ids.map(mistralToolId);
  for (const id of mapped) expect(id).toMatch(/^[A-Za-z0-9]{9}$/);
  expect(ids.map(mistralToolId)).toEqual(mapped);
  expect(new Set(mapped).size).toBe(ids.length);
  expect(mistralToolId("D681PevKs")).toBe("D681PevKs");
});

test("a validation detail list becomes the message; a sentence stays one", () => {
  const make = (type: ConstructorParameters<typeof GatewayError>[0], message: string, init?: ConstructorParameters<typeof GatewayError>[2]) => new GatewayError(type, message, init);
  const detail = mapMistralError(422, { object: "error", message: { detail: [{ loc: ["body", "top_k"], msg: "Extra inputs are not permitted" }] }, type: "invalid_request_message_error" }, new Headers(), make);
  expect(detail.message).toBe("body.top_k: Extra inputs are not permitted");
  expect(detail.status).toBe(422);
  const sentence = mapMistralError(400, { object: "error", message: "Tool call id was x but must be a-z, A-Z, 0-9, with a length of 9.", type: "invalid_function_call", code: "3280" }, new Headers(), make);
  expect(sentence.message).toContain("Tool call id was x");
  expect(sentence.status).toBe(400);
});
