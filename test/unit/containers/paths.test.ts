/**
 * File operations stay inside the container: `..`, absolute paths and symlinks that lead out are refused (the
 * gateway process performs them, so a link made by a command must not turn into a read or write of the host).
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ContainerError, type ContainerHandle } from "../../../core/containers/contract.ts";
import { EXEC } from "../../support/host-bash-sandbox.ts";
import { serviceFixture, type ServiceFixture } from "./helpers.ts";

let fx: ServiceFixture;
let box: ContainerHandle;
/** A host directory outside every container, with a secret in it. */
let outside: string;

beforeAll(async () => {
  outside = await mkdtemp(join(tmpdir(), "outside-"));
  await writeFile(join(outside, "secret.txt"), "host secret");
});
afterAll(async () => rm(outside, { recursive: true, force: true }));
beforeEach(async () => {
  fx = await serviceFixture();
  box = await fx.service.forRequest({ workspaceId: "ws-paths" }).open({});
});
afterEach(async () => fx.close());

async function refused(promise: Promise<unknown>, says: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ContainerError);
  expect((error as Error).message).toContain(says);
}

describe("lexical escapes", () => {
  test("`..` anywhere, absolute paths and NUL are refused for every operation", async () => {
    for (const path of ["../x", "a/../../x", "a/..", "/etc/passwd", `/${outside}/secret.txt`, "a\0b", "", "./"]) {
      await refused(box.readFile(path), "invalid path");
      await refused(box.writeFile(path, "x"), "invalid path");
      await refused(box.deleteFile(path), "invalid path");
      await refused(box.renameFile("anything", path), "invalid path");
    }
  });

  test("`./` and doubled slashes are harmless spellings of a path inside", async () => {
    await box.writeFile("./dir//f.txt", "ok");
    expect(await box.readFile("dir/f.txt")).toBe("ok");
  });
});

describe("symlinks", () => {
  test("a link to a directory outside: no read, write, rename or listing through it", async () => {
    await box.exec(`ln -s ${outside} out`, EXEC);
    await refused(box.readFile("out/secret.txt"), "outside");
    await refused(box.writeFile("out/planted.txt", "x"), "outside");
    await refused(box.writeFile("out/new-dir/planted.txt", "x"), "outside");
    await refused(box.renameFile("out/secret.txt", "stolen.txt"), "outside");
    await box.writeFile("mine.txt", "mine");
    await refused(box.renameFile("mine.txt", "out/mine.txt"), "outside");
    expect((await box.listFiles()).map((file) => file.path)).toEqual(["mine.txt"]);
    expect(existsSync(join(outside, "planted.txt")) || existsSync(join(outside, "new-dir")) || existsSync(join(outside, "mine.txt"))).toBe(false);
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("host secret");
  });

  test("a link to a file outside (absolute or through ..): refused; deleting it removes only the link", async () => {
    await box.exec(`ln -s ${outside}/secret.txt abs && mkdir -p deep && ln -s ../../../../../../../../${outside}/secret.txt deep/rel`, EXEC);
    await refused(box.readFile("abs"), "outside");
    await refused(box.readFile("deep/rel"), "outside");
    await refused(box.writeFile("abs", "overwritten"), "outside");
    await box.deleteFile("abs");
    expect(readFileSync(join(outside, "secret.txt"), "utf8")).toBe("host secret");
    expect((await box.exec("ls", EXEC)).stdout).toBe("deep\n");
  });

  test("a dangling link is refused for writing (what it would create cannot be checked)", async () => {
    await box.exec(`ln -s ${outside}/created-through-link.txt dangling`, EXEC);
    await refused(box.writeFile("dangling", "x"), "outside");
    expect(existsSync(join(outside, "created-through-link.txt"))).toBe(false);
  });

  test("links that stay inside the container work", async () => {
    await box.exec("mkdir real && echo inside > real/f.txt && ln -s real alias && ln -s real/f.txt file-alias", EXEC);
    expect(await box.readFile("alias/f.txt")).toBe("inside\n");
    expect(await box.readFile("file-alias")).toBe("inside\n");
    await box.writeFile("alias/g.txt", "through the alias");
    expect(await box.readFile("real/g.txt")).toBe("through the alias");
  });
});

test("a FIFO made by a command is refused at once instead of blocking the read forever", async () => {
  await box.exec("mkfifo pipe", EXEC);
  await refused(box.readFile("pipe"), "not a regular file");
});

test("commands and file operations of a container take turns", async () => {
  const command = box.exec("sleep 0.2 && echo late > late.txt", EXEC);
  // Started while the command runs: it waits for it instead of racing it.
  await Bun.sleep(20);
  expect(await box.readFile("late.txt")).toBe("late\n");
  await command;
});
