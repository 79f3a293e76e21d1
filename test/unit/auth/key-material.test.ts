/** core/auth/key-material.ts: secrets, their SHA-256 identity, labels and constant-time comparison. */
import { describe, expect, test } from "bun:test";
import * as crypto from "node:crypto";
import { hashSecret, labelOf, newSecret, sameHash } from "../../../core/auth/key-material.ts";

describe("newSecret", () => {
  test("is prefixed, long, url-safe and different every time", () => {
    const secrets = new Set(Array.from({ length: 50 }, () => newSecret()));
    expect(secrets.size).toBe(50);
    for (const secret of secrets) expect(secret).toMatch(/^sk-gw-v1-[A-Za-z0-9_-]{43}$/);
  });
});

describe("hashSecret", () => {
  test("is the SHA-256 hex digest", () => {
    expect(hashSecret("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    expect(hashSecret("")).toBe("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    expect(hashSecret("sk-gw-v1-x")).toBe(crypto.createHash("sha256").update("sk-gw-v1-x").digest("hex"));
  });
});

describe("labelOf", () => {
  test("shows the prefix and three characters of each end, never the secret", () => {
    const secret = "sk-gw-v1-ABCdefghijklmnopXYZ";
    expect(labelOf(secret)).toBe("sk-gw-v1-ABC...XYZ");
    expect(labelOf("admin-0123456789")).toBe("sk-gw-v1-adm...789");
  });
});

describe("sameHash", () => {
  const h1 = hashSecret("one");
  const h2 = hashSecret("two");

  test("equal digests are equal; different or differently sized ones are not", () => {
    expect(sameHash(h1, hashSecret("one"))).toBe(true);
    expect(sameHash(h1, h2)).toBe(false);
    expect(sameHash(h1, h1.slice(0, 62))).toBe(false);
    const lastDigitChanged = h1.slice(0, 63) + (h1.endsWith("0") ? "1" : "0");
    expect(sameHash(h1, lastDigitChanged)).toBe(false);
    expect(sameHash("", h1)).toBe(false);
  });

  test("non-hex input never compares equal to different text, and never throws", () => {
    // Hex-decoding would turn both into empty buffers (equal), or into buffers of different sizes (a throw).
    expect(sameHash("zz", "yy")).toBe(false);
    expect(sameHash("zzzz", "zzzz")).toBe(true);
    expect(() => sameHash("abzz", "abcd")).not.toThrow();
    expect(sameHash("abzz", "abcd")).toBe(false);
    expect(sameHash("é", "e")).toBe(false);
  });

  test("a difference in any single position is detected (the loop has no early exit to skip it)", () => {
    for (const i of [0, 1, 31, 62, 63]) {
      const changed = h1.slice(0, i) + (h1[i] === "0" ? "1" : "0") + h1.slice(i + 1);
      expect(sameHash(h1, changed)).toBe(false);
    }
    expect(sameHash(h1, `${h1}`)).toBe(true);
  });
});
