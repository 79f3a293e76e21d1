/** service:apply_patch on a container: whole patches and per-file operations, all or nothing, errors for the model. */
import { describe, expect, test } from "bun:test";
import applyPatch, { type ApplyPatchResult } from "../../../../tools/apply-patch/index.ts";
import { containerContext, fakeContainer, type FakeContainer } from "../shell/fake-container.ts";

const run = (args: Record<string, unknown>, container: FakeContainer) => applyPatch.run(args, containerContext(container)) as Promise<ApplyPatchResult>;

const README = "# Demo\n\nRun it with `make`.\n";
const MAIN = `package main

import "fmt"

func main() {
\tfmt.Println("hello")
}
`;

describe("service:apply_patch", () => {
  test("a multi-file patch: add, update (moved), delete; result lists each and names the container", async () => {
    const container = fakeContainer({ "README.md": README, "main.go": MAIN, "old/notes.txt": "stale\n" }, "ctr_p1");
    const patch = `*** Begin Patch
*** Add File: cmd/version.go
+package cmd
+
+const Version = "1.0.0"
*** Update File: main.go
*** Move to: cmd/main.go
@@ func main() {
-\tfmt.Println("hello")
+\tfmt.Println("hello, world")
 }
*** Update File: README.md
@@
-Run it with \`make\`.
+Run it with \`make run\`.
*** Delete File: old/notes.txt
*** End Patch`;
    const result = await run({ patch }, container);
    expect(result).toEqual({
      status: "completed",
      output: "Created cmd/version.go\nUpdated main.go (moved to cmd/main.go)\nUpdated README.md\nDeleted old/notes.txt",
      operations: [
        { type: "create_file", path: "cmd/version.go" },
        { type: "update_file", path: "main.go", move_to: "cmd/main.go" },
        { type: "update_file", path: "README.md" },
        { type: "delete_file", path: "old/notes.txt" },
      ],
      container_id: "ctr_p1",
    });
    expect(Object.fromEntries(container.files)).toEqual({
      "README.md": "# Demo\n\nRun it with `make run`.\n",
      "cmd/main.go": MAIN.replace('"hello"', '"hello, world"'),
      "cmd/version.go": 'package cmd\n\nconst Version = "1.0.0"\n',
    });
  });

  test("one hunk that does not fit: an error naming it, and no file changed", async () => {
    const container = fakeContainer({ "README.md": README, "main.go": MAIN });
    const before = Object.fromEntries(container.files);
    const patch = `*** Begin Patch
*** Add File: NEW.md
+new
*** Update File: README.md
@@
-Run it with \`make\`.
+Run it with \`just\`.
*** Update File: main.go
@@
-\tfmt.Println("goodbye")
+\tfmt.Println("hi")
*** End Patch`;
    await expect(run({ patch }, container)).rejects.toThrow("hunk 1 of main.go: these context/removed lines were not found");
    expect(Object.fromEntries(container.files)).toEqual(before);
  });

  test("per-file operations, as OpenAI's apply_patch_call carries them", async () => {
    const container = fakeContainer({ "main.go": MAIN });
    await run({ operation: { type: "create_file", path: "hello.txt", diff: "+hi\n+there\n" } }, container);
    expect(container.files.get("hello.txt")).toBe("hi\nthere\n");
    const updated = await run({ operation: { type: "update_file", path: "main.go", diff: '@@ func main() {\n-\tfmt.Println("hello")\n+\tfmt.Println("bye")\n' } }, container);
    expect(updated.output).toBe("Updated main.go");
    expect(container.files.get("main.go")).toContain('fmt.Println("bye")');
    await run({ operation: { type: "delete_file", path: "hello.txt" } }, container);
    expect(container.files.has("hello.txt")).toBe(false);
  });

  test("creating over an existing file replaces it and says so", async () => {
    const container = fakeContainer({ "a.txt": "old\n" });
    expect((await run({ operation: { type: "create_file", path: "a.txt", diff: "+new" } }, container)).output).toBe("Created a.txt (replaced the existing file)");
    expect(container.files.get("a.txt")).toBe("new\n");
  });

  test("errors for the model: missing files, bad paths, a path twice, neither or both forms, a missing diff", async () => {
    const container = fakeContainer({ "a.txt": "a\n" });
    const op = (type: string, path: string, diff?: string) => run({ operation: { type, path, ...(diff === undefined ? {} : { diff }) } }, container);
    await expect(op("update_file", "nope.txt", "-a\n+b\n")).rejects.toThrow("cannot update nope.txt: no such file");
    await expect(op("delete_file", "nope.txt")).rejects.toThrow("cannot delete nope.txt");
    await expect(op("create_file", "/etc/cron.d/x", "+x")).rejects.toThrow("absolute");
    await expect(op("create_file", "../x", "+x")).rejects.toThrow("leaves the container");
    await expect(op("update_file", "a.txt")).rejects.toThrow("update_file needs a diff");
    await expect(op("rename_file", "a.txt")).rejects.toThrow("invalid arguments (operation.type)");
    await expect(run({}, container)).rejects.toThrow("exactly one of patch or operation");
    await expect(run({ patch: "*** Begin Patch\n*** Delete File: a.txt\n*** End Patch", operation: { type: "delete_file", path: "a.txt" } }, container)).rejects.toThrow("exactly one");
    const twice = "*** Begin Patch\n*** Update File: a.txt\n-a\n+b\n*** Delete File: ./a.txt\n*** End Patch";
    await expect(run({ patch: twice }, container)).rejects.toThrow("a.txt appears in more than one operation");
    expect(container.files.get("a.txt")).toBe("a\n");
  });

  test("a malformed patch never opens a container", async () => {
    const container = fakeContainer();
    await expect(run({ patch: "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n" }, container)).rejects.toThrow('must start with "*** Begin Patch"');
    expect(container.requests).toHaveLength(0);
  });

  test("a write refused part-way (quota) says what was already applied", async () => {
    const container = fakeContainer({ "a.txt": "a\n", "b.txt": "b\n" });
    const original = container.writeFile.bind(container);
    let writes = 0;
    container.writeFile = async (path, content) => {
      if (++writes === 2) throw new Error("container quota exceeded (bytes)");
      return original(path, content);
    };
    const patch = "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Update File: b.txt\n-b\n+B\n*** End Patch";
    await expect(run({ patch }, container)).rejects.toThrow("could not update b.txt: container quota exceeded (bytes) (already applied: Updated a.txt)");
  });
});
