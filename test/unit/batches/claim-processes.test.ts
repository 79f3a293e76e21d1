/** Two OS processes claiming from one SQLite file at once: every item is claimed and ended by exactly one of them. */
import { describe, expect, test } from "bun:test";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { openStore } from "../../../core/store/connect.ts";
import { newBatch } from "./helpers.ts";

describe("claims across processes (SQLite file)", () => {
  test("two processes share one batch with no item claimed twice", async () => {
    const url = `sqlite://${join(mkdtempSync(join(tmpdir(), "gw-claim-")), "g.db")}`;
    const store = await openStore(url);
    const batch = await store.batches.create(newBatch(80));
    const child = resolve(import.meta.dir, "claim-child.ts");
    const run = (worker: string) => Bun.spawn(["bun", child, url, batch.id, worker], { stdout: "pipe", stderr: "inherit" });
    const [one, two] = [run("p1"), run("p2")];
    const [outOne, outTwo] = await Promise.all([new Response(one.stdout).text(), new Response(two.stdout).text()]);
    expect(await one.exited).toBe(0);
    expect(await two.exited).toBe(0);
    const ids = [...(JSON.parse(outOne) as string[]), ...(JSON.parse(outTwo) as string[])];
    expect(ids.length).toBe(80);
    expect(new Set(ids).size).toBe(80);
    const items = await store.batches.results(batch.id);
    expect(items.every((item) => item.status === "completed" && item.attempts === 1)).toBe(true);
    // Both processes did work (the batch was shared, not drained by one of them).
    expect(new Set(items.map((item) => item.claimedBy)).size).toBe(2);
    await store.close();
  }, 30_000);
});
