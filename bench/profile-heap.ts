/**
 * Compares two heap snapshots of the gateway (Bun.generateHeapSnapshot("v8"), the Chrome format): live objects by
 * kind — an object by its class, a closure by its function's name, strings, code — counted and sized by their own
 * (shallow) size, and what grew between the two, per open stream.
 */

interface Snapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

export interface HeapKinds {
  totalBytes: number;
  totalCount: number;
  kinds: Map<string, { count: number; bytes: number }>;
}

/** Kinds whose instances are told apart by name; the others are one bucket per type. */
const NAMED = new Set(["object", "closure", "native", "hidden", "array", "synthetic"]);

export function heapKinds(json: string): HeapKinds {
  const snap = JSON.parse(json) as Snapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const [typeAt, nameAt, sizeAt] = ["type", "name", "self_size"].map((f) => fields.indexOf(f)) as [number, number, number];
  const kinds = new Map<string, { count: number; bytes: number }>();
  let totalBytes = 0;
  let totalCount = 0;
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!] ?? "?";
    const size = snap.nodes[i + sizeAt]!;
    const name = NAMED.has(type) ? `${type} ${snap.strings[snap.nodes[i + nameAt]!] || "(anonymous)"}` : `(${type})`;
    const entry = kinds.get(name) ?? { count: 0, bytes: 0 };
    entry.count++;
    entry.bytes += size;
    kinds.set(name, entry);
    totalBytes += size;
    totalCount++;
  }
  return { totalBytes, totalCount, kinds };
}

export interface HeapGrowth {
  kind: string;
  count: number;
  bytes: number;
}

/** What grew from `before` to `after`, largest first. */
export function heapGrowth(before: HeapKinds, after: HeapKinds): HeapGrowth[] {
  const out: HeapGrowth[] = [];
  for (const [kind, a] of after.kinds) {
    const b = before.kinds.get(kind) ?? { count: 0, bytes: 0 };
    out.push({ kind, count: a.count - b.count, bytes: a.bytes - b.bytes });
  }
  return out.sort((x, y) => y.bytes - x.bytes);
}
