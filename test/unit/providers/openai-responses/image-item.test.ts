/** OpenAI Responses `image_generation_call` items → image parts. */
import { describe, expect, test } from "bun:test";
import { imageFromItem } from "../../../../providers/openai-responses/image-item.ts";

describe("imageFromItem", () => {
  test("result base64 in its output format → data: URL image; png by default", () => {
    expect(imageFromItem({ type: "image_generation_call", status: "completed", result: "AAAA", output_format: "webp" })).toEqual({ type: "image", url: "data:image/webp;base64,AAAA", mediaType: "image/webp" });
    expect(imageFromItem({ type: "image_generation_call", status: "completed", result: "AAAA" })?.mediaType).toBe("image/png");
  });

  test("no result (failed, or announced and not yet done) → no image", () => {
    expect(imageFromItem({ type: "image_generation_call", status: "failed", result: null })).toBeUndefined();
    expect(imageFromItem({ type: "image_generation_call", status: "in_progress" })).toBeUndefined();
  });
});
