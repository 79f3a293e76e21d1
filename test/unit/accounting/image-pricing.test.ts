/** Generated images are priced per image on top of tokens; usage sums them across turns. */
import { describe, expect, test } from "bun:test";
import { costOf } from "../../../core/accounting/pricing.ts";
import { addUsage, emptyUsage, type Usage } from "../../../core/model/usage.ts";
import { withImageCount } from "../../../core/pipeline/turn/meter.ts";

const usage = (output: Usage["output"]): Usage => ({ input: { total: 100, cacheRead: 0, cacheWrite: 0 }, output });

describe("per-image price", () => {
  test("each image adds pricing.image to the output cost", () => {
    const pricing = { prompt: 0.000001, completion: 0.000002, image: 0.04 };
    expect(costOf(usage({ total: 10, reasoning: 0, images: 2 }), pricing)).toEqual({ total: 0.08012, input: 0.0001, output: 0.08002, upstream: null });
    expect(costOf(usage({ total: 10, reasoning: 0 }), pricing).total).toBe(0.00012);
  });

  test("without an image price, images cost only their tokens", () => {
    expect(costOf(usage({ total: 10, reasoning: 0, images: 1 }), { prompt: 0.000001, completion: 0.000002 }).total).toBe(0.00012);
  });

  test("a failed turn that still delivered an image is billed (the no-charge rule needs no output at all)", () => {
    expect(costOf(usage({ total: 0, reasoning: 0, images: 1 }), { prompt: 0, completion: 0, image: 0.04 }, true).total).toBe(0.04);
    expect(costOf(usage({ total: 0, reasoning: 0 }), { prompt: 0.000001, completion: 0, image: 0.04 }, true).total).toBe(0);
  });

  test("counts add up across turns and stay absent when there are none", () => {
    expect(addUsage(usage({ total: 1, reasoning: 0, images: 1 }), usage({ total: 2, reasoning: 0, images: 2 })).output).toEqual({ total: 3, reasoning: 0, images: 3 });
    expect(addUsage(emptyUsage(), emptyUsage()).output).toEqual({ total: 0, reasoning: 0 });
  });

  test("the meter counts the images of a reply unless the adapter already did", () => {
    expect(withImageCount(emptyUsage(), 2).output).toEqual({ total: 0, reasoning: 0, images: 2 });
    expect(withImageCount(usage({ total: 1, reasoning: 0, images: 5 }), 2).output.images).toBe(5);
    const none = emptyUsage();
    expect(withImageCount(none, 0)).toBe(none);
  });
});
