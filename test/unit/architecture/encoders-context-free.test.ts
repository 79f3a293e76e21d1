/**
 * The wire formats encode from data: the response or the events, the request, and the outcome's trailer the edge
 * settles (README "What a request carries"). None of them imports the request context, not even its type, so none
 * can call back into it.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import { readImportGraph } from "./import-graph.ts";

const ROOT = join(import.meta.dir, "../../..");

test("no wire format file imports the request context", () => {
  const graph = readImportGraph(ROOT, true, ["core/formats"]);
  expect(graph.size).toBeGreaterThan(40);
  const offenders = [...graph].filter(([, targets]) => targets.includes("core/pipeline/context.ts")).map(([file]) => file);
  expect(offenders).toEqual([]);
});
