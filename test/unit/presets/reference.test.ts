/** core/presets/slug.ts and reference.ts: the slug rule and the three ways a request names a preset. */
import { describe, expect, test } from "bun:test";
import { presetReferenceOf } from "../../../core/presets/reference.ts";
import { checkSlug, isSlug } from "../../../core/presets/slug.ts";

describe("slug rule", () => {
  test("URL-safe characters, 1 to 128 of them", () => {
    for (const ok of ["a", "my-preset", "v1.2_beta~x", "A".repeat(128)]) expect(isSlug(ok)).toBe(true);
    for (const bad of ["", "a b", "a/b", "a@b", "ü", "%20", ".", "..", "A".repeat(129)]) expect(isSlug(bad)).toBe(false);
  });

  test("checkSlug throws a 400 naming the slug", () => {
    try {
      checkSlug("no spaces");
      throw new Error("expected a throw");
    } catch (error) {
      expect((error as { status: number }).status).toBe(400);
      expect((error as Error).message).toContain('"no spaces"');
    }
  });
});

describe("preset references", () => {
  test("none: a plain model", () => {
    expect(presetReferenceOf({ model: "vendor/model" })).toBeUndefined();
  });

  test("@preset/slug leaves the model to the preset", () => {
    expect(presetReferenceOf({ model: "@preset/pirate" })).toEqual({ slug: "pirate", model: undefined });
  });

  test("vendor/model@preset/slug keeps the request's model", () => {
    expect(presetReferenceOf({ model: "acme/model-a@preset/pirate" })).toEqual({ slug: "pirate", model: "acme/model-a" });
  });

  test("preset beside a model", () => {
    expect(presetReferenceOf({ model: "acme/model-a", preset: "pirate" })).toEqual({ slug: "pirate", model: "acme/model-a" });
    expect(presetReferenceOf({ preset: "pirate" })).toEqual({ slug: "pirate", model: undefined });
  });

  test("two different presets, a non-string preset, or a bad slug are 400s", () => {
    expect(() => presetReferenceOf({ model: "@preset/a", preset: "b" })).toThrow("two presets");
    expect(() => presetReferenceOf({ preset: 3 })).toThrow("preset: must be a string");
    expect(() => presetReferenceOf({ model: "@preset/a b" })).toThrow("Invalid preset slug");
  });
});
