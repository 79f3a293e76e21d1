/** plugins/switchyard-router: the tier thresholds, the local rule and the judge's answer. */
import { describe, expect, test } from "bun:test";
import { conformanceRequest } from "../../../../core/sdk/conformance.ts";
import { classify } from "../../../../plugins/router-kit/classify.ts";
import { combine, ruleVerdict, tierFor } from "../../../../plugins/switchyard-router/decide.ts";
import { parseVerdict } from "../../../../plugins/switchyard-router/judge.ts";

describe("tiers", () => {
  test.each([
    ["supported", 0.6, "efficient"],
    ["supported", 0.59, "capable"],
    ["uncertain", 0.75, "efficient"],
    ["unmatched", 0.74, "capable"],
    ["unsupported", 0.9, "efficient"],
    ["unsupported", 0.89, "capable"],
  ] as const)("%s at p_solve %p: %s", (boundary, pSolve, tier) => {
    expect(tierFor({ boundary, pSolve })).toBe(tier);
  });

  test("the rule: small talk is supported, demanding work unsupported, the rest uncertain; composite averages", () => {
    expect(ruleVerdict(classify(conformanceRequest("hello there"))).boundary).toBe("supported");
    expect(ruleVerdict(classify(conformanceRequest("Write a function that merges two sorted lists"))).boundary).toBe("uncertain");
    const hard = "Prove rigorously, step by step and in detail, why this algorithm is optimal: analyze the design and every edge case";
    expect(ruleVerdict(classify(conformanceRequest(hard))).boundary).toBe("unsupported");
    expect(combine({ boundary: "supported", pSolve: 0.4 }, { boundary: "uncertain", pSolve: 1 })).toEqual({ boundary: "uncertain", pSolve: 0.7 });
  });
});

describe("the judge's answer", () => {
  test("JSON, also inside a fence or prose", () => {
    expect(parseVerdict('{"crux":"x","primary_rule":"y","capability_boundary":"supported","p_solve":0.8}')).toEqual({ verdict: { boundary: "supported", pSolve: 0.8 }, crux: "x", primaryRule: "y" });
    expect(parseVerdict('Sure:\n```json\n{"capability_boundary":"unsupported","p_solve":0.1}\n```')).toEqual({ verdict: { boundary: "unsupported", pSolve: 0.1 } });
  });

  test("failures are named", () => {
    expect(parseVerdict("no idea")).toEqual({ failure: "judge_not_valid_json" });
    expect(parseVerdict("{broken")).toEqual({ failure: "judge_not_valid_json" });
    expect(parseVerdict('{"capability_boundary":"maybe","p_solve":0.5}')).toEqual({ failure: "judge_schema_mismatch" });
    expect(parseVerdict('{"capability_boundary":"supported","p_solve":1.5}')).toEqual({ failure: "judge_schema_mismatch" });
  });
});
