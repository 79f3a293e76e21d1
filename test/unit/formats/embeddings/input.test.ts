/** core/formats/embeddings/input.ts and encode.ts: every input shape, every refusal naming its field, base64 bytes. */
import { describe, expect, test } from "bun:test";
import { float32Base64 } from "../../../../core/formats/embeddings/encode.ts";
import { decodeInput } from "../../../../core/formats/embeddings/input.ts";

describe("decodeInput", () => {
  test("a string, strings, one token array, token arrays", () => {
    expect(decodeInput("a")).toEqual({ texts: ["a"] });
    expect(decodeInput(["a", "b"])).toEqual({ texts: ["a", "b"] });
    expect(decodeInput([1, 2])).toEqual({ tokens: [[1, 2]] });
    expect(decodeInput([[1], [2, 3]])).toEqual({ tokens: [[1], [2, 3]] });
  });

  test("refusals name the field", () => {
    const cases: Array<[unknown, string]> = [
      ["", "input: must not be an empty string"],
      [[], "input: must not be an empty array"],
      [null, "input: must be a string"],
      [["a", ""], "input[1]: must not be an empty string"],
      [["a", 2], "input[1]: must be a string like the other inputs"],
      [[1, -1], "input[1]: must be a token id"],
      [[1, 1.5], "input[1]: must be a token id"],
      [[[1], []], "input[1]: must not be an empty array"],
      [[[1], [2, "x"]], "input[1][1]: must be a token id"],
      [[{ content: [] }], "input[0]: multimodal inputs"],
      [[true], "input[0]: must be a string, a token id or a token-id array"],
    ];
    for (const [input, message] of cases) expect(() => decodeInput(input)).toThrow(message);
  });
});

test("float32Base64: little-endian float32 bytes, as OpenAI sends them", () => {
  const bytes = Buffer.from(float32Base64([1, -2.5, 0.1]), "base64");
  expect(bytes).toHaveLength(12);
  expect([bytes.readFloatLE(0), bytes.readFloatLE(4)]).toEqual([1, -2.5]);
  expect(bytes.readFloatLE(8)).toBeCloseTo(0.1, 7);
});
