/**
 * Applying V4A hunks to realistic files: several hunks in order, anchors that pick one of two look-alike places,
 * whitespace and punctuation fuzz, end-of-file hunks, pure insertions, line endings, and hunks that do not fit.
 */
import { describe, expect, test } from "bun:test";
import { applyHunks } from "../../../../tools/apply-patch/v4a-apply.ts";
import { parseUpdateDiff } from "../../../../tools/apply-patch/v4a-parse.ts";
import { PatchError } from "../../../../tools/apply-patch/v4a-types.ts";

const apply = (original: string, diff: string) => applyHunks(original, parseUpdateDiff(diff), "f.py");

const INVENTORY = `import json


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, name, count):
        self.items[name] = count
        return self

    def remove(self, name):
        del self.items[name]
        return self


class Ledger:
    def add(self, name, count):
        self.items[name] = count
        return self

    def dump(self):
        return json.dumps(self.items)
`;

describe("applyHunks", () => {
  test("several hunks, each after the previous one, context kept as the file has it", () => {
    const diff = `@@ import json
-
+import logging

@@     def add(self, name, count):
-        self.items[name] = count
+        self.items[name] = self.items.get(name, 0) + count
         return self
@@     def remove(self, name):
-        del self.items[name]
+        self.items.pop(name, None)
         return self
`;
    const out = apply(INVENTORY, diff);
    expect(out).toContain("import json\nimport logging\n\nclass Inventory:");
    expect(out).toContain("        self.items[name] = self.items.get(name, 0) + count\n        return self\n\n    def remove");
    expect(out).toContain("        self.items.pop(name, None)");
    // Ledger.add has the same lines: the first match after the cursor (Inventory.add) is the one changed.
    expect(out).toContain("class Ledger:\n    def add(self, name, count):\n        self.items[name] = count\n");
  });

  test("nested anchors choose the second of two identical methods", () => {
    const diff = `@@ class Ledger:
@@     def add(self, name, count):
-        self.items[name] = count
+        self.items[name] = -count
`;
    const out = apply(INVENTORY, diff);
    expect(out).toContain("class Inventory:\n    def __init__(self):\n        self.items = {}\n\n    def add(self, name, count):\n        self.items[name] = count\n");
    expect(out).toContain("class Ledger:\n    def add(self, name, count):\n        self.items[name] = -count\n");
  });

  test("a missing anchor among several is an error; a single one that is nowhere is only a hint", () => {
    expect(() => apply(INVENTORY, "@@ class Nope:\n@@     def add(self, name, count):\n-        return self\n+        return None\n")).toThrow('anchor "@@ class Nope:" was not found');
    expect(apply("a\nb\n", "@@ def gone():\n-b\n+c\n")).toBe("a\nc\n");
  });

  test("an anchor given as the start of a line (`@@ def dump`) finds `def dump(self):`", () => {
    const out = apply(INVENTORY, "@@ def dump\n-        return json.dumps(self.items)\n+        return json.dumps(self.items, indent=2)\n");
    expect(out.endsWith("        return json.dumps(self.items, indent=2)\n")).toBe(true);
  });

  test("fuzz: trailing blanks, re-indented context and typographic punctuation still match; the file's text is kept", () => {
    const original = 'title = "Report – Q3"   \n    value = 1\nprint(title)\n';
    const diff = `@@
 title = "Report - Q3"
-value = 1
+    value = 2
 print(title)
`;
    expect(apply(original, diff)).toBe('title = "Report – Q3"   \n    value = 2\nprint(title)\n');
  });

  test("an exact match later in the file wins over a fuzzy one earlier", () => {
    const original = "x = 1  \ny = 0\nx = 1\ny = 0\n";
    expect(apply(original, "-x = 1\n+x = 9\n y = 0\n")).toBe("x = 1  \ny = 0\nx = 9\ny = 0\n");
  });

  test("*** End of File: the block at the end, not an identical one earlier; pure additions go to the end", () => {
    const original = "end\nmiddle\nend\n";
    expect(apply(original, "-end\n+fin\n*** End of File\n")).toBe("end\nmiddle\nfin\n");
    expect(apply("a\nb\n", "+c\n+d\n")).toBe("a\nb\nc\nd\n");
    expect(apply("a\nb\n", "+c\n*** End of File\n")).toBe("a\nb\nc\n");
  });

  test("a pure addition after an anchor lands right after that line", () => {
    expect(apply("[deps]\nfoo = 1\n[dev]\nbar = 2\n", "@@ [dev]\n+baz = 3\n")).toBe("[deps]\nfoo = 1\n[dev]\nbaz = 3\nbar = 2\n");
  });

  test("line endings: CRLF stays CRLF, a missing final newline stays missing, an empty file gets one", () => {
    expect(apply("one\r\ntwo\r\nthree\r\n", " one\n-two\n+2\n")).toBe("one\r\n2\r\nthree\r\n");
    expect(apply("one\ntwo", "-two\n+2\n")).toBe("one\n2");
    expect(apply("", "+first\n")).toBe("first\n");
    expect(apply("only\n", "-only\n")).toBe("");
  });

  test("blank context at a hunk's edge that the file does not have there is dropped", () => {
    expect(apply("a\nb\nc\n", "\n-b\n+B\n\n")).toBe("a\nB\nc\n");
  });

  test("hunks written out of order still apply; hunks that change the same lines are refused", () => {
    const original = "one\ntwo\nthree\nfour\n";
    expect(apply(original, "-three\n+3\n@@\n-one\n+1\n")).toBe("1\ntwo\n3\nfour\n");
    expect(() => apply(original, "-two\n-three\n+x\n@@\n-three\n+y\n")).toThrow(PatchError);
  });

  test("context that is not in the file names the hunk and shows the lines", () => {
    let message = "";
    try {
      apply(INVENTORY, "@@ def add\n         return self\n@@\n-    def clear(self):\n+    def reset(self):\n");
    } catch (error) {
      expect(error).toBeInstanceOf(PatchError);
      message = (error as Error).message;
    }
    expect(message).toBe("hunk 2 of f.py: these context/removed lines were not found (read the file again and retry):\n      def clear(self):");
  });
});
