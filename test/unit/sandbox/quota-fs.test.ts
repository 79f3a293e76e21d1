import { afterEach, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ReadWriteFs } from "just-bash";
import { QuotaFs } from "../../../core/sandbox/just-bash/quota-fs.ts";

describe("QuotaFs", () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), "quota-fs-"));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  const make = (maxBytes: number, maxEntries = 100) => new QuotaFs(new ReadWriteFs({ root }), root, maxBytes, maxEntries);

  test("writes within the quota land on disk; the one that would pass it is refused with EDQUOT and never written", async () => {
    const fs = make(10);
    await fs.writeFile("/a", "12345");
    await fs.appendFile("/a", "678");
    await expect(fs.writeFile("/b", "abc")).rejects.toMatchObject({ code: "EDQUOT" });
    expect(existsSync(join(root, "b"))).toBe(false);
    await expect(fs.appendFile("/a", "abc")).rejects.toMatchObject({ code: "EDQUOT" });
    expect(readFileSync(join(root, "a"), "utf8")).toBe("12345678");
  });

  test("overwriting a file counts only the difference", async () => {
    const fs = make(10);
    await fs.writeFile("/a", "1234567890");
    await fs.writeFile("/a", "abcdefghij");
    expect(readFileSync(join(root, "a"), "utf8")).toBe("abcdefghij");
  });

  test("counts what is already in the container, and frees what is removed", async () => {
    writeFileSync(join(root, "existing"), "x".repeat(8));
    const fs = make(10);
    await expect(fs.writeFile("/new", "abc")).rejects.toMatchObject({ code: "EDQUOT" });
    await fs.rm("/existing");
    await fs.writeFile("/new", "abcdefghij");
  });

  test("a copy counts the bytes it duplicates", async () => {
    const fs = make(10);
    await fs.writeFile("/a", "123456");
    await expect(fs.cp("/a", "/b")).rejects.toMatchObject({ code: "EDQUOT" });
    expect(existsSync(join(root, "b"))).toBe(false);
  });

  test("the entries quota refuses one file or directory too many", async () => {
    const fs = make(1_000, 2);
    await fs.mkdir("/d");
    await fs.writeFile("/d/one", "1");
    await expect(fs.writeFile("/d/two", "2")).rejects.toMatchObject({ code: "EDQUOT" });
    await expect(fs.mkdir("/e/f", { recursive: true })).rejects.toMatchObject({ code: "EDQUOT" });
  });
});
