import { describe, expect, test } from "bun:test";
import { CappedCollector, capText, cutUtf8 } from "../../../core/sandbox/output-cap.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

describe("output cap", () => {
  test("keeps text under the cap whole", () => {
    expect(capText("hello", 5)).toEqual({ text: "hello", truncated: false });
  });

  test("cuts at the cap and never splits a character", () => {
    // "é" is 2 bytes: a cap of 4 bytes cannot end inside the second "é".
    expect(capText("aéé", 4)).toEqual({ text: "aé", truncated: true });
    expect(new TextDecoder().decode(cutUtf8(bytes("a€"), 3))).toBe("a");
    expect(cutUtf8(bytes("abc"), 2)).toEqual(bytes("ab"));
  });

  test("a collector keeps the first bytes, counts all, and flags the cut", () => {
    const collector = new CappedCollector(5);
    collector.push(bytes("abc"));
    collector.push(bytes("defgh"));
    collector.push(bytes("ijk"));
    expect(collector.total).toBe(11);
    expect(collector.truncated).toBe(true);
    expect(collector.text()).toBe("abcde");
  });

  test("a collector's cut falls on a character boundary too", () => {
    const collector = new CappedCollector(4);
    collector.push(bytes("ab€")); // € is 3 bytes: bytes 3..5
    expect(collector.text()).toBe("ab");
    const whole = new CappedCollector(5);
    whole.push(bytes("ab€"));
    expect([whole.text(), whole.truncated]).toEqual(["ab€", false]);
  });
});
