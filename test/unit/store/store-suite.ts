/** One behavioural suite every store backend must pass (SQLite memory, SQLite file, Postgres). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { OpenStoreOptions } from "../../../core/store/connect.ts";
import { DEFAULT_WORKSPACE_ID } from "../../../core/store/repos/workspaces.ts";
import type { Store } from "../../../core/store/types.ts";
import type { GenerationRecord } from "../../../core/store/types/generations.ts";
import type { ApiKeyRecord, NewApiKey } from "../../../core/store/types/keys.ts";

/** A settable clock, so timestamps are asserted exactly. */
export class FakeClock {
  constructor(public ms = 1_700_000_000_000) {}
  now(): number {
    return this.ms;
  }
}

/** Opens a store of the backend under test with the given options. */
export type OpenBackend = (opts: OpenStoreOptions) => Promise<Store>;

let counter = 0;
/** A value unique within this run, so tests sharing one database never see each other's rows. */
export function unique(prefix: string): string {
  counter += 1;
  return `${prefix}-${process.pid}-${Date.now().toString(36)}-${counter}`;
}

/** A new-key payload with sensible defaults. */
export function newKey(workspaceId: string, patch: Partial<NewApiKey> = {}): NewApiKey {
  return {
    hash: unique("hash"),
    workspaceId,
    name: "a key",
    label: "sk-gw-v1-abc...xyz",
    isManagement: false,
    limit: null,
    limitReset: null,
    expiresAt: null,
    ...patch,
  };
}

/** A generation with sensible defaults. */
export function generation(workspaceId: string, patch: Partial<GenerationRecord> = {}): GenerationRecord {
  return {
    id: unique("gen"),
    workspaceId,
    keyHash: "hash-1",
    format: "chat",
    model: "openai/gpt-x",
    providerId: "openai",
    upstreamModel: "gpt-x-2025",
    streamed: true,
    status: 200,
    finishReason: "stop",
    errorType: null,
    inputTokens: 1200,
    cachedInputTokens: 200,
    cacheWriteTokens: 0,
    outputTokens: 345,
    reasoningTokens: 17,
    cost: 0.001234,
    latencyMs: 812,
    firstTokenMs: 95,
    createdAt: 1_700_000_123_456,
    ...patch,
  };
}

function expectJsTypes(key: ApiKeyRecord): void {
  // Postgres returns int8 as strings and our booleans are integers: the repositories must hide both.
  for (const field of ["usage", "createdAt", "updatedAt"] as const) expect(typeof key[field]).toBe("number");
  expect(typeof key.isManagement).toBe("boolean");
  expect(typeof key.disabled).toBe("boolean");
}

/** Registers the suite for one backend. */
export function describeStore(label: string, dialect: Store["dialect"], open: OpenBackend, skip = false): void {
  describe.skipIf(skip)(`store contract: ${label}`, () => {
    const clock = new FakeClock();
    let store: Store;

    beforeAll(async () => {
      store = await open({ clock });
    });
    afterAll(async () => {
      await store?.close();
    });

    test("reports its dialect", () => {
      expect(store.dialect).toBe(dialect);
    });

    describe("workspaces", () => {
      test("ensureDefault creates the well-known default once and returns it thereafter", async () => {
        const first = await store.workspaces.ensureDefault();
        clock.ms += 1000;
        const again = await store.workspaces.ensureDefault();
        expect(first.id).toBe(DEFAULT_WORKSPACE_ID);
        expect(again).toEqual(first);
        expect(typeof first.createdAt).toBe("number");
        expect(await store.workspaces.get(first.id)).toEqual(first);
      });

      test("ensureDefault is race-safe within one process", async () => {
        const all = await Promise.all(Array.from({ length: 10 }, () => store.workspaces.ensureDefault()));
        expect(new Set(all.map((w) => `${w.id}/${w.createdAt}`)).size).toBe(1);
      });

      test("create makes distinct workspaces that persist", async () => {
        const a = await store.workspaces.create("team a");
        const b = await store.workspaces.create("team b");
        expect(a.id).not.toBe(b.id);
        expect(a.id).not.toBe(DEFAULT_WORKSPACE_ID);
        expect(await store.workspaces.get(b.id)).toEqual(b);
      });

      test("get of an unknown id is undefined", async () => {
        expect(await store.workspaces.get(crypto.randomUUID())).toBeUndefined();
      });
    });

    describe("keys", () => {
      test("create returns the stored record with JS types", async () => {
        clock.ms = 1_700_000_000_000;
        const input = newKey(unique("ws"), { isManagement: true, limit: 12.5, limitReset: "monthly", expiresAt: 1_800_000_000_000 });
        const key = await store.keys.create(input);
        expect(key).toEqual({
          hash: input.hash,
          workspaceId: input.workspaceId,
          name: input.name,
          label: input.label,
          isManagement: true,
          disabled: false,
          limit: 12.5,
          limitReset: "monthly",
          usage: 0,
          createdAt: clock.ms,
          updatedAt: clock.ms,
          expiresAt: 1_800_000_000_000,
          includeByokInLimit: false,
        });
        expectJsTypes(key);
        expect(await store.keys.findByHash(input.hash)).toEqual(key);
      });

      test("findByHash of an unknown hash is undefined", async () => {
        expect(await store.keys.findByHash(unique("nope"))).toBeUndefined();
      });

      test("create rejects a duplicate hash", async () => {
        const input = newKey(unique("ws"));
        await store.keys.create(input);
        await expect(store.keys.create(input)).rejects.toThrow();
      });

      test("list is per workspace, oldest first, paginated, and hides disabled keys unless asked", async () => {
        const ws = unique("ws");
        const hashes: string[] = [];
        for (let i = 0; i < 5; i++) {
          clock.ms += 10;
          hashes.push((await store.keys.create(newKey(ws, { name: `k${i}` }))).hash);
        }
        await store.keys.create(newKey(unique("other-ws")));
        await store.keys.update(hashes[1]!, { disabled: true });

        const page = (offset: number, limit: number, includeDisabled: boolean) =>
          store.keys.list(ws, { offset, limit, includeDisabled }).then((keys) => keys.map((k) => k.hash));

        expect(await page(0, 100, true)).toEqual(hashes);
        const at = (...indexes: number[]) => indexes.map((i) => hashes[i]!);
        expect(await page(0, 100, false)).toEqual(at(0, 2, 3, 4));
        expect(await page(1, 2, false)).toEqual(at(2, 3));
        expect(await page(4, 2, false)).toEqual([]);
        const listed = await store.keys.list(ws, { offset: 0, limit: 1, includeDisabled: true });
        expectJsTypes(listed[0]!);
      });

      test("list breaks created-at ties deterministically, so pages never overlap", async () => {
        const ws = unique("ws");
        for (let i = 0; i < 6; i++) await store.keys.create(newKey(ws));
        const all = await store.keys.list(ws, { offset: 0, limit: 6, includeDisabled: true });
        const paged = [
          ...(await store.keys.list(ws, { offset: 0, limit: 3, includeDisabled: true })),
          ...(await store.keys.list(ws, { offset: 3, limit: 3, includeDisabled: true })),
        ];
        expect(paged.map((k) => k.hash)).toEqual(all.map((k) => k.hash));
        expect(new Set(paged.map((k) => k.hash)).size).toBe(6);
      });

      test("update applies only the given fields and stamps updatedAt", async () => {
        clock.ms = 1_700_000_500_000;
        const key = await store.keys.create(newKey(unique("ws"), { limit: 3, limitReset: "daily" }));
        clock.ms += 5000;
        const updated = await store.keys.update(key.hash, { name: "renamed", limit: null, disabled: true });
        expect(updated).toEqual({ ...key, name: "renamed", limit: null, disabled: true, updatedAt: clock.ms });
        expect(await store.keys.findByHash(key.hash)).toEqual(updated);

        const again = await store.keys.update(key.hash, { limitReset: null, expiresAt: 1_900_000_000_000, disabled: false });
        expect(again?.limitReset).toBeNull();
        expect(again?.expiresAt).toBe(1_900_000_000_000);
        expect(again?.disabled).toBe(false);
      });

      test("include_byok_in_limit is stored on create and changed by update", async () => {
        const key = await store.keys.create(newKey(unique("ws"), { includeByokInLimit: true }));
        expect(key.includeByokInLimit).toBe(true);
        expect((await store.keys.update(key.hash, { includeByokInLimit: false }))?.includeByokInLimit).toBe(false);
        expect((await store.keys.findByHash(key.hash))?.includeByokInLimit).toBe(false);
      });

      test("update with an empty patch changes nothing; of an unknown hash is undefined", async () => {
        const key = await store.keys.create(newKey(unique("ws")));
        clock.ms += 1000;
        expect(await store.keys.update(key.hash, {})).toEqual(key);
        expect(await store.keys.update(unique("nope"), { name: "x" })).toBeUndefined();
      });

      test("delete removes the key and reports whether it existed", async () => {
        const ws = unique("ws");
        const key = await store.keys.create(newKey(ws));
        expect(await store.keys.delete(key.hash)).toBe(true);
        expect(await store.keys.delete(key.hash)).toBe(false);
        expect(await store.keys.findByHash(key.hash)).toBeUndefined();
        expect(await store.keys.list(ws, { offset: 0, limit: 10, includeDisabled: true })).toEqual([]);
      });

      test("count counts every key", async () => {
        const before = await store.keys.count();
        expect(typeof before).toBe("number");
        await store.keys.create(newKey(unique("ws")));
        await store.keys.create(newKey(unique("ws"), { isManagement: true }));
        expect(await store.keys.count()).toBe(before + 2);
      });

      test("addUsage adds to several keys, merging repeated entries, ignoring unknown keys", async () => {
        const a = await store.keys.create(newKey(unique("ws")));
        const b = await store.keys.create(newKey(unique("ws")));
        await store.keys.addUsage([
          { hash: a.hash, amount: 0.25 },
          { hash: b.hash, amount: 1.5 },
          { hash: a.hash, amount: 0.125 },
          { hash: unique("missing"), amount: 9 },
        ]);
        await store.keys.addUsage([{ hash: a.hash, amount: 0.000001 }]);
        await store.keys.addUsage([]);
        expect((await store.keys.findByHash(a.hash))?.usage).toBeCloseTo(0.375001, 9);
        expect((await store.keys.findByHash(b.hash))?.usage).toBe(1.5);
      });

      test("addUsage drops non-finite amounts instead of poisoning the total", async () => {
        const key = await store.keys.create(newKey(unique("ws")));
        await store.keys.addUsage([
          { hash: key.hash, amount: Number.NaN },
          { hash: key.hash, amount: Number.POSITIVE_INFINITY },
          { hash: key.hash, amount: 2 },
        ]);
        expect((await store.keys.findByHash(key.hash))?.usage).toBe(2);
      });

      test("addUsage is atomic under concurrent flushes (no lost increments)", async () => {
        const a = await store.keys.create(newKey(unique("ws")));
        const b = await store.keys.create(newKey(unique("ws")));
        // Opposite orders in alternate flushes: with per-flush sorting these cannot deadlock on Postgres.
        await Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            store.keys.addUsage(
              i % 2 === 0
                ? [{ hash: a.hash, amount: 0.5 }, { hash: b.hash, amount: 0.25 }]
                : [{ hash: b.hash, amount: 0.25 }, { hash: a.hash, amount: 0.5 }],
            ),
          ),
        );
        expect((await store.keys.findByHash(a.hash))?.usage).toBe(20);
        expect((await store.keys.findByHash(b.hash))?.usage).toBe(10);
      });
    });

    describe("generations", () => {
      test("insertMany then get round-trips every field", async () => {
        const ws = unique("ws");
        const full = generation(ws);
        const sparse = generation(ws, {
          providerId: null,
          upstreamModel: null,
          streamed: false,
          status: 502,
          finishReason: null,
          errorType: "provider_error",
          firstTokenMs: null,
          cost: 0,
        });
        await store.generations.insertMany([full, sparse]);
        expect(await store.generations.get(full.id, ws)).toEqual(full);
        expect(await store.generations.get(sparse.id, ws)).toEqual(sparse);
      });

      test("get is scoped to the workspace", async () => {
        const record = generation(unique("ws"));
        await store.generations.insertMany([record]);
        expect(await store.generations.get(record.id, unique("other-ws"))).toBeUndefined();
        expect(await store.generations.get(unique("gen"), record.workspaceId)).toBeUndefined();
      });

      test("insertMany of nothing is a no-op; a re-sent record is neither duplicated nor an error", async () => {
        await store.generations.insertMany([]);
        const record = generation(unique("ws"));
        await store.generations.insertMany([record]);
        await store.generations.insertMany([{ ...record, cost: 99 }, generation(record.workspaceId)]);
        expect((await store.generations.get(record.id, record.workspaceId))?.cost).toBe(record.cost);
      });

      test("insertMany handles batches larger than one INSERT", async () => {
        const ws = unique("ws");
        const records = Array.from({ length: 1234 }, (_, i) => generation(ws, { id: `${ws}-${i}`, inputTokens: i }));
        await store.generations.insertMany(records);
        expect(await store.generations.get(`${ws}-0`, ws)).toEqual(records[0]!);
        expect(await store.generations.get(`${ws}-1233`, ws)).toEqual(records[1233]!);
      });

      test("details round-trip; the log pages newest first with filters; usage sums per UTC day and group", async () => {
        const ws = unique("ws");
        const day = 86_400_000;
        const t0 = Date.UTC(2025, 6, 14, 10);
        const records = [
          generation(ws, { id: `${ws}-a`, createdAt: t0, model: "m/one", keyHash: "k1", cost: 0.5, inputTokens: 10, outputTokens: 1, details: '{"attempts":[]}' }),
          generation(ws, { id: `${ws}-b`, createdAt: t0 + 1000, model: "m/two", keyHash: "k1", cost: 0.25, inputTokens: 20, outputTokens: 2 }),
          generation(ws, { id: `${ws}-c`, createdAt: t0 + day, model: "m/one", keyHash: "k2", cost: 1, inputTokens: 30, outputTokens: 3, status: 502 }),
          generation(unique("other"), { createdAt: t0 }),
        ];
        await store.generations.insertMany(records);
        expect((await store.generations.get(`${ws}-a`, ws))?.details).toBe('{"attempts":[]}');
        const page1 = await store.generations.list(ws, { limit: 2 });
        expect(page1.map((g) => g.id)).toEqual([`${ws}-c`, `${ws}-b`]);
        const last = page1.at(-1)!;
        expect((await store.generations.list(ws, { limit: 2, before: { createdAt: last.createdAt, id: last.id } })).map((g) => g.id)).toEqual([`${ws}-a`]);
        expect((await store.generations.list(ws, { limit: 10, model: "m/one" })).map((g) => g.id)).toEqual([`${ws}-c`, `${ws}-a`]);
        expect((await store.generations.list(ws, { limit: 10, outcome: "error" })).map((g) => g.id)).toEqual([`${ws}-c`]);
        expect((await store.generations.list(ws, { limit: 10, keyHash: "k1", outcome: "success" })).map((g) => g.id)).toEqual([`${ws}-b`, `${ws}-a`]);
        const usage = await store.generations.usageByDay(ws, { from: t0 - day, to: t0 + 2 * day, groupBy: "model" });
        const first = Math.floor(t0 / day);
        expect(usage).toEqual([
          { day: first, group: "m/one", requests: 1, inputTokens: 10, outputTokens: 1, cost: 0.5 },
          { day: first, group: "m/two", requests: 1, inputTokens: 20, outputTokens: 2, cost: 0.25 },
          { day: first + 1, group: "m/one", requests: 1, inputTokens: 30, outputTokens: 3, cost: 1 },
        ]);
        expect((await store.generations.usageByDay(ws, { from: t0, to: t0 + day, groupBy: "key" })).map((u) => [u.group, u.requests])).toEqual([["k1", 2]]);
      });

      test("fractional latencies are stored as whole milliseconds", async () => {
        const record = generation(unique("ws"), { latencyMs: 12.6, firstTokenMs: 3.2 });
        await store.generations.insertMany([record]);
        const stored = await store.generations.get(record.id, record.workspaceId);
        expect(stored?.latencyMs).toBe(13);
        expect(stored?.firstTokenMs).toBe(3);
      });
    });
  });
}
