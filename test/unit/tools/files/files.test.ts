/** service:files: list (filters), read, write, edit (exactly one occurrence), rename, the listing's file ids, path refusals. */
import { describe, expect, test } from "bun:test";
import { fileIdOf } from "../../../../core/containers/file-ids.ts";
import { pathFilter } from "../../../../tools/files/filter.ts";
import files from "../../../../tools/files/index.ts";
import { MAX_LISTED, MAX_READ_CHARS } from "../../../../tools/files/operations.ts";
import { containerPath } from "../../../../tools/container-kit/paths.ts";
import { containerContext, fakeContainer, type FakeContainer } from "../shell/fake-container.ts";

type Json = Record<string, any>;
const run = (args: Record<string, unknown>, container: FakeContainer) => files.run(args, containerContext(container)) as Promise<Json>;

describe("paths and filters", () => {
  test("./ and repeated slashes are the same file; absolute, .. and directories are refused", () => {
    expect(containerPath("./src//app.py")).toBe("src/app.py");
    expect(() => containerPath("/etc/passwd")).toThrow("absolute");
    expect(() => containerPath("a/../../b")).toThrow("leaves the container");
    expect(() => containerPath("src/")).toThrow("directory");
    expect(() => containerPath("  ")).toThrow("empty");
  });

  test("substring (case-insensitive, whole path), name globs, path globs", () => {
    const paths = ["README.md", "src/app.py", "src/lib/util.py", "test/app_test.py", "notes.txt"];
    const keep = (filter: string) => paths.filter(pathFilter(filter));
    expect(keep("APP")).toEqual(["src/app.py", "test/app_test.py"]);
    expect(keep("*.py")).toEqual(["src/app.py", "src/lib/util.py", "test/app_test.py"]);
    expect(keep("src/*.py")).toEqual(["src/app.py"]);
    expect(keep("src/**/*.py")).toEqual(["src/app.py", "src/lib/util.py"]);
    expect(keep("[rn]*")).toEqual(["notes.txt"]);
    expect(keep("?EADME.md")).toEqual(["README.md"]);
    expect(keep("")).toEqual(paths);
  });
});

describe("service:files", () => {
  test("list: sorted, with ids, sizes and times; filtered", async () => {
    const container = fakeContainer({ "b.txt": "bb", "a/x.py": "print(1)\n", "a.txt": "" });
    const listed = await run({ operation: "list" }, container);
    expect(listed).toEqual({
      result: [
        { file_id: fileIdOf("a.txt"), filename: "a.txt", bytes: 0, created_at: 1_700_000_000 },
        { file_id: fileIdOf("a/x.py"), filename: "a/x.py", bytes: 9, created_at: 1_700_000_000 },
        { file_id: fileIdOf("b.txt"), filename: "b.txt", bytes: 2, created_at: 1_700_000_000 },
      ],
      container_id: "ctr_test123",
    });
    expect((await run({ operation: "list", filename_filter: "*.txt" }, container)).result.map((f: Json) => f.filename)).toEqual(["a.txt", "b.txt"]);
  });

  test("list: a huge listing is cut with a note", async () => {
    const container = fakeContainer(Object.fromEntries(Array.from({ length: MAX_LISTED + 5 }, (_, i) => [`f${String(i).padStart(5, "0")}.txt`, ""])));
    const listed = await run({ operation: "list" }, container);
    expect(listed.result).toHaveLength(MAX_LISTED);
    expect(listed.note).toContain(`of ${MAX_LISTED + 5} files`);
  });

  test("write creates and overwrites; read returns the text, by name or by file id", async () => {
    const container = fakeContainer();
    expect(await run({ operation: "write", filename: "./notes/todo.md", content: "- café\n" }, container)).toEqual({
      file_id: fileIdOf("notes/todo.md"),
      filename: "notes/todo.md",
      result: { bytes: 8 },
      container_id: "ctr_test123",
    });
    await run({ operation: "write", filename: "notes/todo.md", content: "" }, container);
    expect(container.files.get("notes/todo.md")).toBe("");
    container.files.set("notes/todo.md", "line\n");
    expect((await run({ operation: "read", filename: "notes/todo.md" }, container)).result).toBe("line\n");
    expect((await run({ operation: "read", file_id: fileIdOf("notes/todo.md") }, container)).result).toBe("line\n");
  });

  test("read cuts a huge file and says how much there was", async () => {
    const container = fakeContainer({ "big.log": "x".repeat(MAX_READ_CHARS + 10) });
    const { result } = await run({ operation: "read", filename: "big.log" }, container);
    expect(result.startsWith("x".repeat(MAX_READ_CHARS))).toBe(true);
    expect(result).toContain(`of ${MAX_READ_CHARS + 10} characters`);
  });

  test("edit replaces exactly one occurrence; none or several is an error and the file is unchanged", async () => {
    const container = fakeContainer({ "app.py": "x = 1\ny = 1\nprint(x)\n" });
    expect((await run({ operation: "edit", filename: "app.py", old_string: "x = 1", new_string: "x = 2" }, container)).result).toEqual({ replaced: 1 });
    expect(container.files.get("app.py")).toBe("x = 2\ny = 1\nprint(x)\n");
    await expect(run({ operation: "edit", filename: "app.py", old_string: "z = 1", new_string: "" }, container)).rejects.toThrow("not found in app.py");
    await expect(run({ operation: "edit", filename: "app.py", old_string: " = ", new_string: "=" }, container)).rejects.toThrow("more than once");
    await expect(run({ operation: "edit", filename: "app.py", old_string: "", new_string: "a" }, container)).rejects.toThrow("old_string is empty");
    await expect(run({ operation: "edit", filename: "app.py", old_string: "y" }, container)).rejects.toThrow("both old_string and new_string");
    expect(container.files.get("app.py")).toBe("x = 2\ny = 1\nprint(x)\n");
  });

  test("edit with new_filename renames (after replacing, when both are given); the new name gets the new id", async () => {
    const container = fakeContainer({ "draft.md": "# Draft\n" });
    const renamed = await run({ operation: "edit", filename: "draft.md", old_string: "Draft", new_string: "Final", new_filename: "final.md" }, container);
    expect(renamed).toMatchObject({ filename: "final.md", file_id: fileIdOf("final.md"), result: { replaced: 1, renamed_from: "draft.md" } });
    expect([...container.files]).toEqual([["final.md", "# Final\n"]]);
  });

  test("errors for the model: missing names and content, unknown files, bad paths, unknown arguments", async () => {
    const container = fakeContainer();
    await expect(run({ operation: "read" }, container)).rejects.toThrow("read needs a filename");
    await expect(run({ operation: "write", filename: "a" }, container)).rejects.toThrow("write needs content");
    await expect(run({ operation: "read", filename: "nope.txt" }, container)).rejects.toThrow("no such file");
    await expect(run({ operation: "read", filename: "../../etc/shadow" }, container)).rejects.toThrow("leaves the container");
    await expect(run({ operation: "read", file_id: "file-123" }, container)).rejects.toThrow("not a container file id");
    await expect(run({ operation: "edit", filename: "a" }, container)).rejects.toThrow("edit needs");
    await expect(run({ operation: "delete", filename: "a" }, container)).rejects.toThrow("invalid arguments (operation)");
    await expect(run({ operation: "list", recursive: true }, container)).rejects.toThrow("unknown argument");
  });
});
