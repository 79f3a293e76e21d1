import { expect, test } from "bun:test";
import { heapGrowth, heapKinds } from "../../../bench/profile-heap.ts";

/** A V8-format snapshot with the given nodes: [type index, name, self size]. */
function snapshot(nodes: Array<[number, string, number]>): string {
  const strings: string[] = [];
  const at = (s: string) => (strings.includes(s) ? strings.indexOf(s) : strings.push(s) - 1);
  const flat = nodes.flatMap(([type, name, size], id) => [type, at(name), id, size, 0, 0, 0]);
  return JSON.stringify({
    snapshot: {
      meta: {
        node_fields: ["type", "name", "id", "self_size", "edge_count", "trace_node_id", "detachedness"],
        node_types: [["hidden", "array", "string", "object", "code", "closure"], "string", "number", "number", "number", "number", "number"],
      },
    },
    nodes: flat,
    strings,
  });
}

test("heap kinds: objects by class, closures by name, strings in one bucket; growth largest first", () => {
  const before = heapKinds(snapshot([[3, "Request", 100], [2, "a", 10]]));
  const after = heapKinds(
    snapshot([
      [3, "Request", 100],
      [3, "Request", 100],
      [5, "pull", 32],
      [2, "a", 10],
      [2, "bb", 20],
    ]),
  );
  expect(before.totalBytes).toBe(110);
  expect(after.kinds.get("object Request")).toEqual({ count: 2, bytes: 200 });
  expect(after.kinds.get("(string)")).toEqual({ count: 2, bytes: 30 });
  expect(heapGrowth(before, after).slice(0, 3)).toEqual([
    { kind: "object Request", count: 1, bytes: 100 },
    { kind: "closure pull", count: 1, bytes: 32 },
    { kind: "(string)", count: 1, bytes: 20 },
  ]);
});
