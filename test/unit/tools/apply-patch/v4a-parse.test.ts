/** V4A parsing: the envelope, each section kind, hunks and anchors, the lenient cases, and errors naming the line. */
import { describe, expect, test } from "bun:test";
import { parseCreateDiff, parsePatch, parseUpdateDiff } from "../../../../tools/apply-patch/v4a-parse.ts";
import { PatchError } from "../../../../tools/apply-patch/v4a-types.ts";

const patch = (...lines: string[]) => lines.join("\n");

function parseError(text: string): string {
  try {
    parsePatch(text);
  } catch (error) {
    expect(error).toBeInstanceOf(PatchError);
    return (error as Error).message;
  }
  throw new Error("expected a PatchError");
}

describe("parsePatch", () => {
  test("add, update (with a move and two hunks), delete", () => {
    const ops = parsePatch(
      patch(
        "*** Begin Patch",
        "*** Add File: docs/hello.md",
        "+# Hello",
        "+",
        "+World",
        "*** Update File: src/app.py",
        "*** Move to: src/main.py",
        "@@ class App:",
        "@@     def run(self):",
        "         x = 1",
        "-        return x",
        "+        return x + 1",
        "@@",
        " def helper():",
        "-    pass",
        "+    return 2",
        "*** End of File",
        "*** Delete File: old.txt",
        "*** End Patch",
      ),
    );
    expect(ops).toEqual([
      { type: "create_file", path: "docs/hello.md", content: "# Hello\n\nWorld\n" },
      {
        type: "update_file",
        path: "src/app.py",
        moveTo: "src/main.py",
        hunks: [
          {
            anchors: ["class App:", "    def run(self):"],
            lines: [
              { kind: " ", text: "        x = 1" },
              { kind: "-", text: "        return x" },
              { kind: "+", text: "        return x + 1" },
            ],
            endOfFile: false,
          },
          {
            anchors: [],
            lines: [
              { kind: " ", text: "def helper():" },
              { kind: "-", text: "    pass" },
              { kind: "+", text: "    return 2" },
            ],
            endOfFile: true,
          },
        ],
      },
      { type: "delete_file", path: "old.txt" },
    ]);
  });

  test("lenient: CRLF, a code fence, blank lines between sections, an empty hunk line, unified range headers", () => {
    const text = [
      "```diff",
      "*** Begin Patch",
      "",
      "*** Update File: a.js",
      "@@ -10,4 +10,4 @@ function main() {",
      " const a = 1;",
      "",
      "-const b = 2;",
      "+const b = 3;",
      "@@ -40,2 +40,2 @@",
      "-x();",
      "+y();",
      "",
      "*** End Patch",
      "```",
    ].join("\r\n");
    const [op] = parsePatch(text);
    expect(op).toEqual({
      type: "update_file",
      path: "a.js",
      hunks: [
        {
          anchors: ["function main() {"],
          lines: [
            { kind: " ", text: "const a = 1;" },
            { kind: " ", text: "" },
            { kind: "-", text: "const b = 2;" },
            { kind: "+", text: "const b = 3;" },
          ],
          endOfFile: false,
        },
        // The blank line before *** End Patch reads as empty context; the applier drops blank edges if they do not fit.
        { anchors: [], lines: [{ kind: "-", text: "x();" }, { kind: "+", text: "y();" }, { kind: " ", text: "" }], endOfFile: false },
      ],
    });
  });

  test("an added file that is empty, and one whose trailing blank lines are layout", () => {
    expect(parsePatch(patch("*** Begin Patch", "*** Add File: empty.txt", "*** End Patch"))).toEqual([{ type: "create_file", path: "empty.txt", content: "" }]);
    expect(parsePatch(patch("*** Begin Patch", "*** Add File: a.txt", "+a", "", "", "*** End Patch"))[0]).toEqual({ type: "create_file", path: "a.txt", content: "a\n" });
  });

  test("errors name the line and say what was expected", () => {
    expect(parseError("*** Update File: a\n-x\n*** End Patch")).toContain('must start with "*** Begin Patch"');
    expect(parseError("*** Begin Patch\n*** Delete File: a")).toContain('must end with "*** End Patch"');
    expect(parseError("*** Begin Patch\n*** End Patch")).toContain("no file operations");
    expect(parseError("*** Begin Patch\n*** Rename File: a\n*** End Patch")).toBe('line 2: expected "*** Add File:", "*** Update File:", "*** Delete File:" or "*** End Patch", got "*** Rename File: a"');
    expect(parseError("*** Begin Patch\n*** Add File: a\n+ok\nnot added\n*** End Patch")).toBe('line 4: a line of an added file must start with "+", got "not added"');
    expect(parseError("*** Begin Patch\n*** Update File: a\n@@\n x\n?y\n*** End Patch")).toContain("line 5: a hunk line must start with");
    expect(parseError("*** Begin Patch\n*** Update File: a\n*** End Patch")).toContain('line 2: "*** Update File: a" has no changes');
    expect(parseError("*** Begin Patch\n*** Update File: a\n@@ def f():\n*** End Patch")).toContain("line 3: a hunk has no lines");
    expect(parseError("*** Begin Patch\n*** Delete File: a\n-x\n*** End Patch")).toContain("line 3: a deleted file has no content lines");
    expect(parseError("*** Begin Patch\n*** Add File:   \n*** End Patch")).toContain("needs a path");
    expect(parseError("*** Begin Patch\n*** Delete File: a\n*** End Patch\nmore")).toContain("text after");
  });
});

describe("per-operation diffs (apply_patch_call)", () => {
  test("create_file: + lines; anything else is an error", () => {
    expect(parseCreateDiff("+line one\n+line two\n")).toBe("line one\nline two\n");
    expect(() => parseCreateDiff("+ok\nplain")).toThrow('line 2: a line of an added file must start with "+"');
  });

  test("update_file: hunks without an envelope; an empty diff is an error", () => {
    expect(parseUpdateDiff("@@ def f():\n-    return 1\n+    return 2\n")).toEqual([
      { anchors: ["def f():"], lines: [{ kind: "-", text: "    return 1" }, { kind: "+", text: "    return 2" }], endOfFile: false },
    ]);
    expect(() => parseUpdateDiff("")).toThrow("no changes");
    expect(() => parseUpdateDiff("*** Update File: x\n-a")).toThrow('unexpected "*** Update File: x"');
  });
});
