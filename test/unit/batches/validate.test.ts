/** core/batches/validate.ts: each request checked with its format's schema and decode; every problem reported. */
import { describe, expect, test } from "bun:test";
import { validateRequests } from "../../../core/batches/validate.ts";
import { isGatewayError } from "../../../core/errors.ts";
import { chatFormat } from "../../../core/formats/chat/index.ts";
import { messagesFormat } from "../../../core/formats/messages/index.ts";
import { responsesFormat } from "../../../core/formats/responses/index.ts";
import type { Store } from "../../../core/store/types.ts";
import type { PresetRecord } from "../../../core/store/types/presets.ts";
import { inferencePrincipal } from "../pipeline/helpers.ts";

const preset = { designatedVersion: { config: { temperature: 0.2, max_tokens: 7 }, systemPrompt: "Preset." } } as unknown as PresetRecord;
const store = { presets: { get: async (_ws: string, slug: string) => (slug === "known" ? preset : undefined) } } as unknown as Store;
const deps = { store };
const user = (text: string) => ({ messages: [{ role: "user", content: text }] });

async function problems(run: () => Promise<unknown>): Promise<Array<{ index: number; custom_id: string; message: string }>> {
  try {
    await run();
  } catch (error) {
    if (isGatewayError(error) && error.status === 400) return error.metadata?.errors as Array<{ index: number; custom_id: string; message: string }>;
    throw error;
  }
  throw new Error("expected a 400");
}

describe("validateRequests", () => {
  test("valid bodies come back with the batch model filled in and presets resolved", async () => {
    const bodies = await validateRequests(deps, inferencePrincipal, chatFormat, "m", [
      { custom_id: "a", body: user("one") },
      { custom_id: "b", body: { ...user("two"), model: "m", preset: "known" } },
    ]);
    expect(bodies[0]).toEqual({ ...user("one"), model: "m" });
    expect(bodies[1]).toEqual({ model: "m", temperature: 0.2, max_tokens: 7, messages: [{ role: "system", content: "Preset." }, { role: "user", content: "two" }] });
  });

  test("every problem is reported with its index, custom_id and reason", async () => {
    const found = await problems(() =>
      validateRequests(deps, inferencePrincipal, chatFormat, "m", [
        { custom_id: "a", body: user("ok") },
        { custom_id: "a", body: user("dup") },
        { custom_id: "c", body: { ...user("x"), model: "other" } },
        { custom_id: "d", body: { ...user("x"), top_p: 3 } },
        { custom_id: "e", body: { ...user("x"), preset: "unknown" } },
      ]),
    );
    expect(found.map((p) => [p.index, p.custom_id])).toEqual([
      [1, "a"],
      [2, "c"],
      [3, "d"],
      [4, "e"],
    ]);
    expect(found[2]!.message).toStartWith("top_p:");
  });

  test("decode rules of the format apply (Responses previous_response_id, Messages fallbacks with models)", async () => {
    const responses = await problems(() => validateRequests(deps, inferencePrincipal, responsesFormat, undefined, [{ custom_id: "r", body: { model: "m", input: "x", previous_response_id: "resp_1" } }]));
    expect(responses[0]!.message).toContain("previous_response_id");
    const messages = await problems(() =>
      validateRequests(deps, inferencePrincipal, messagesFormat, undefined, [{ custom_id: "m", body: { model: "m", max_tokens: 5, ...user("x"), models: ["a"], fallbacks: [{ model: "b" }] } }]),
    );
    expect(messages[0]!.message).toContain("fallbacks");
  });
});
