/** The guardrails and admissions repositories on every backend (SQLite memory, Postgres when DATABASE_URL is set). */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { openStore } from "../../../core/store/connect.ts";
import type { Store } from "../../../core/store/types.ts";
import { newGuardrail, type NewGuardrail } from "../../../core/store/types/guardrails.ts";
import { createTempSchema, logPostgresSkip, POSTGRES_URL, type TempSchema } from "../../support/pg-schema.ts";
import { FakeClock, generation, unique } from "./store-suite.ts";

function guardrail(workspaceId: string, patch: Partial<NewGuardrail> = {}): NewGuardrail {
  return { ...newGuardrail(unique("grd"), workspaceId, "pii"), ...patch };
}

function suite(label: string, open: (clock: FakeClock) => Promise<Store>, skip = false): void {
  describe.skipIf(skip)(`guardrails repository: ${label}`, () => {
    const clock = new FakeClock();
    let store: Store;
    beforeAll(async () => void (store = await open(clock)));
    afterAll(() => store?.close());

    test("create, get, list, update (collections replaced), delete with its assignments", async () => {
      const ws = unique("ws");
      clock.ms = 1_700_000_000_000;
      const created = await store.guardrails.create(
        guardrail(ws, {
          name: "first",
          limitUsd: 2.5,
          resetInterval: "weekly",
          allowedModels: ["openai/*"],
          contentFilters: [{ pattern: "secret-\\d+", action: "block", label: "CODE" }],
          contentFilterBuiltins: [{ slug: "email", action: "redact" }],
          applyTo: "both",
          options: { enforce_zdr: true },
        }),
      );
      expect(created).toMatchObject({ name: "first", limitUsd: 2.5, resetInterval: "weekly", allowedModels: ["openai/*"], ignoredModels: null, applyTo: "both", createdAt: 1_700_000_000_000 });
      expect(created.contentFilters).toEqual([{ pattern: "secret-\\d+", action: "block", label: "CODE" }]);
      expect(await store.guardrails.get(created.id, ws)).toEqual(created);
      expect(await store.guardrails.get(created.id, unique("other-ws"))).toBeUndefined();

      clock.ms += 1000;
      const second = await store.guardrails.create(guardrail(ws, { name: "second" }));
      const page = await store.guardrails.list(ws, { offset: 0, limit: 1 });
      expect(page.total).toBe(2);
      expect(page.data.map((g) => g.id)).toEqual([created.id]);
      expect((await store.guardrails.list(ws, { offset: 1, limit: 10 })).data.map((g) => g.id)).toEqual([second.id]);

      clock.ms += 1000;
      const updated = await store.guardrails.update(created.id, ws, { contentFilterBuiltins: [], allowedModels: null, description: "d" });
      expect(updated).toMatchObject({ contentFilterBuiltins: [], allowedModels: null, description: "d", name: "first", updatedAt: clock.ms });
      expect(updated?.contentFilters).toHaveLength(1);

      await store.guardrails.assign(created.id, ws, "key", ["k1"], () => unique("asg"));
      expect(await store.guardrails.delete(created.id, ws)).toBe(true);
      expect(await store.guardrails.delete(created.id, ws)).toBe(false);
      expect((await store.guardrails.assignments(ws, "key", { offset: 0, limit: 10 })).total).toBe(0);
    });

    test("assignments: counted once, removed, listed, and applied to a key through itself or its workspace", async () => {
      const ws = unique("ws");
      const a = await store.guardrails.create(guardrail(ws, { name: "a" }));
      const b = await store.guardrails.create(guardrail(ws, { name: "b" }));
      const c = await store.guardrails.create(guardrail(ws, { name: "c" }));
      const ids = () => unique("asg");
      expect(await store.guardrails.assign(a.id, ws, "key", ["k1", "k2", "k1"], ids)).toBe(2);
      expect(await store.guardrails.assign(a.id, ws, "key", ["k1", "k3"], ids)).toBe(1);
      expect(await store.guardrails.assign(b.id, ws, "workspace", [ws], ids)).toBe(1);
      expect(await store.guardrails.assign(a.id, ws, "workspace", [ws], ids)).toBe(1);
      expect(await store.guardrails.unassign(a.id, "key", ["k3", "nope"])).toBe(1);

      const keys = await store.guardrails.assignments(ws, "key", { offset: 0, limit: 10 });
      expect(keys.total).toBe(2);
      expect(keys.data.map((x) => x.target).sort()).toEqual(["k1", "k2"]);
      expect((await store.guardrails.assignments(ws, "workspace", { offset: 0, limit: 10, guardrailId: b.id })).data.map((x) => x.guardrailId)).toEqual([b.id]);

      const applied = await store.guardrails.applying(ws, "k1");
      expect(applied.map((x) => [x.record.name, x.scope])).toEqual([
        ["a", "key"],
        ["b", "workspace"],
      ]);
      expect((await store.guardrails.applying(ws, "k9")).map((x) => x.record.name)).toEqual(["a", "b"]);
      expect(await store.guardrails.applying(unique("ws"), "k1")).toEqual([]);
      void c;
    });

    test("budget spending is written with billed generations, once, and summed per window", async () => {
      const ws = unique("ws");
      const g = await store.guardrails.create(guardrail(ws, { limitUsd: 1 }));
      const early = generation(ws, { cost: 0.25, createdAt: 1_000, guardrailBudgets: [g.id] });
      const late = generation(ws, { cost: 0.5, createdAt: 5_000, guardrailBudgets: [g.id, "grd-other"] });
      const free = generation(ws, { cost: 0, createdAt: 6_000, guardrailBudgets: [g.id] });
      await store.generations.bill([early, late, free]);
      await store.generations.bill([late]); // a retried flush charges nothing twice
      expect(await store.guardrails.spentSince(g.id, 0)).toBeCloseTo(0.75, 12);
      expect(await store.guardrails.spentSince(g.id, 2_000)).toBeCloseTo(0.5, 12);
      expect(await store.guardrails.spentSince("grd-other", 0)).toBeCloseTo(0.5, 12);
      expect(await store.guardrails.spentSince("grd-none", 0)).toBe(0);
    });

    test("admissions to a beta feature, per key or workspace", async () => {
      const ws = unique("ws");
      expect(await store.admissions.admitted("alignment", ws, "k1")).toBe(false);
      expect(await store.admissions.admit("alignment", ws, "key", ["k1", "k1"])).toBe(1);
      expect(await store.admissions.admitted("alignment", ws, "k1")).toBe(true);
      expect(await store.admissions.admitted("alignment", ws, "k2")).toBe(false);
      expect(await store.admissions.admitted("other", ws, "k1")).toBe(false);
      expect(await store.admissions.admit("alignment", ws, "workspace", [ws])).toBe(1);
      expect(await store.admissions.admitted("alignment", ws, "k2")).toBe(true);
      expect((await store.admissions.list("alignment", ws)).map((a) => a.scope).sort()).toEqual(["key", "workspace"]);
      expect(await store.admissions.revoke("alignment", ws, "workspace", [ws])).toBe(1);
      expect(await store.admissions.admitted("alignment", ws, "k2")).toBe(false);
    });
  });
}

suite("sqlite :memory:", (clock) => openStore("sqlite://:memory:", { clock }));

logPostgresSkip();
let schema: TempSchema | undefined;
beforeAll(async () => {
  if (POSTGRES_URL) schema = await createTempSchema(POSTGRES_URL);
});
afterAll(async () => {
  await schema?.drop();
});
suite(
  "postgres",
  (clock) => {
    if (!schema) throw new Error("temp schema not created");
    return openStore(schema.url, { clock });
  },
  !POSTGRES_URL,
);
