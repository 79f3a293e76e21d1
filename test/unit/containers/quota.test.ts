/** Per-container quotas (`sandbox.max_bytes`, `sandbox.max_files`): a tool error when exceeded, never a crash. */
import { afterEach, beforeEach, expect, test } from "bun:test";
import { ContainerError, type ContainerHandle } from "../../../core/containers/contract.ts";
import { EXEC } from "../../support/host-bash-sandbox.ts";
import { serviceFixture, type ServiceFixture } from "./helpers.ts";

let fx: ServiceFixture;
let box: ContainerHandle;
beforeEach(async () => {
  fx = await serviceFixture({ maxBytes: 100, maxFiles: 5 });
  box = await fx.service.forRequest({ workspaceId: "ws-quota" }).open({});
});
afterEach(async () => fx.close());

async function quotaError(promise: Promise<unknown>): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ContainerError);
  expect((error as Error).message).toContain("quota");
}

test("bytes: a write past max_bytes is refused; overwriting counts the new size, not both", async () => {
  await quotaError(box.writeFile("big.txt", "x".repeat(101)));
  await box.writeFile("a.txt", "x".repeat(60));
  await quotaError(box.writeFile("b.txt", "x".repeat(41)));
  await box.writeFile("b.txt", "x".repeat(40));
  // 60 → 55 while b holds 40: 95 in all.
  await box.writeFile("a.txt", "x".repeat(55));
  expect((await box.listFiles()).map((file) => [file.path, file.bytes])).toEqual([
    ["a.txt", 55],
    ["b.txt", 40],
  ]);
});

test("files: directories count too, so a write creating two directories and a file needs three free entries", async () => {
  await box.writeFile("1", "");
  await box.writeFile("2", "");
  await box.writeFile("3", "");
  await quotaError(box.writeFile("d/e/f", ""));
  await box.writeFile("d/f", "");
  await quotaError(box.writeFile("4", ""));
  await quotaError(box.renameFile("1", "new-dir/1"));
  await box.renameFile("1", "d/1");
});

test("a command that leaves the container over quota ends in a tool error; deleting brings it back", async () => {
  await quotaError(box.exec("head -c 500 /dev/zero > blob", EXEC));
  // Writes are refused while over; commands still run, so the model can clean up.
  await quotaError(box.writeFile("small.txt", "x"));
  const cleanup = await box.exec("rm blob && echo cleaned", EXEC);
  expect(cleanup.stdout).toBe("cleaned\n");
  await box.writeFile("small.txt", "x");
});
