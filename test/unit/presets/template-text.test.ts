/** `{{variable}}` substitution of prompt templates. */
import { describe, expect, test } from "bun:test";
import { isGatewayError } from "../../../core/errors.ts";
import { renderTemplate, variableText } from "../../../core/presets/template-text.ts";

/** The 400's `metadata.param`, or a failure when nothing (or something else) was thrown. */
function paramOf(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    if (isGatewayError(error) && error.status === 400) return error.metadata?.param;
    throw error;
  }
  throw new Error("expected a 400");
}

describe("renderTemplate", () => {
  test("replaces every placeholder, spaced or not, each occurrence", () => {
    expect(renderTemplate("{{a}} and {{ a }} then {{b.c}}", { a: "x", "b.c": "y" })).toBe("x and x then y");
  });

  test("a value containing {{…}} is inserted as is, not expanded again", () => {
    expect(renderTemplate("Say {{a}}", { a: "{{b}}", b: "no" })).toBe("Say {{b}}");
  });

  test("text without placeholders is unchanged; unused variables are ignored", () => {
    expect(renderTemplate("plain {not} {{", { extra: "x" })).toBe("plain {not} {{");
  });

  test("a placeholder without a variable is a 400 naming it", () => {
    expect(paramOf(() => renderTemplate("{{a}} {{missing}}", { a: "x" }))).toBe("prompt.variables.missing");
  });

  test("an inherited property name is not a variable", () => {
    expect(paramOf(() => renderTemplate("{{toString}}", {}))).toBe("prompt.variables.toString");
  });
});

describe("variableText", () => {
  test("strings, numbers, booleans and input_text parts", () => {
    expect(variableText("v", "s")).toBe("s");
    expect(variableText("v", 2.5)).toBe("2.5");
    expect(variableText("v", false)).toBe("false");
    expect(variableText("v", { type: "input_text", text: "t" })).toBe("t");
  });

  test("images, files, null and objects are a 400 naming the variable", () => {
    for (const value of [{ type: "input_image", image_url: "https://x/a.png" }, { type: "input_file", file_id: "f" }, null, { a: 1 }, [1]]) {
      expect(paramOf(() => variableText("pic", value))).toBe("prompt.variables.pic");
    }
  });
});
