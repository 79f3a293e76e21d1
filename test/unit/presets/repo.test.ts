/** core/store/repos/presets.ts: numbered versions under concurrency, reads, workspace isolation, delete. */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Store } from "../../../core/store/types.ts";
import type { NewPresetVersion, PresetRecord } from "../../../core/store/types/presets.ts";
import { backends } from "./backends.ts";

const input = (slug: string, patch: Partial<NewPresetVersion> = {}): NewPresetVersion => ({
  workspaceId: "ws-1",
  slug,
  config: { model: "m", temperature: 0.5 },
  systemPrompt: "sys",
  creatorId: "key-1",
  now: 1_700_000_000_000,
  ...patch,
});

for (const backend of backends) {
  describe.skipIf(backend.skip)(`preset repository: ${backend.label}`, () => {
    let a: Store;
    let b: Store;
    let close: () => Promise<void>;
    beforeAll(async () => {
      ({ a, b, close } = await backend.pair());
    });
    afterAll(async () => close?.());

    test("20 concurrent creates on one slug from two handles: distinct, gap-free versions (or conflicts, never a lost or duplicated one)", async () => {
      const outcomes = await Promise.all(Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? a : b).presets.createVersion(input("race", { config: { n: i } }))));
      const created = outcomes.filter((o): o is PresetRecord => o !== "conflict");
      const versions = created.map((p) => p.designatedVersion.version).sort((x, y) => x - y);
      expect(versions).toEqual(Array.from({ length: created.length }, (_, i) => i + 1));
      const stored = await a.presets.get("ws-1", "race");
      const all = await a.presets.listVersions(stored!.id, { offset: 0, limit: 100 });
      expect(all.total).toBe(created.length);
      expect(all.versions.map((v) => v.version)).toEqual(versions);
      // Every stored version is one of the creates that reported success, each exactly once.
      expect(new Set(all.versions.map((v) => JSON.stringify(v.config))).size).toBe(created.length);
      expect(stored!.designatedVersion.version).toBe(created.length);
      expect(created.length).toBeGreaterThanOrEqual(1);
    });

    test("a new version becomes the designated one; versions read oldest first; one version by number", async () => {
      const first = await a.presets.createVersion(input("v", { config: { n: 1 } }));
      const second = await a.presets.createVersion(input("v", { config: { n: 2 }, systemPrompt: null, now: 1_700_000_000_500 }));
      if (first === "conflict" || second === "conflict") throw new Error("unexpected conflict");
      expect(second.id).toBe(first.id);
      expect(second.designatedVersion.version).toBe(2);
      expect(second.updatedAt).toBe(1_700_000_000_500);
      expect(second.createdAt).toBe(1_700_000_000_000);
      const page = await a.presets.listVersions(first.id, { offset: 1, limit: 1 });
      expect(page).toMatchObject({ total: 2, versions: [{ version: 2, config: { n: 2 }, systemPrompt: null }] });
      expect((await a.presets.getVersion(first.id, 1))?.config).toEqual({ n: 1 });
      expect(await a.presets.getVersion(first.id, 3)).toBeUndefined();
    });

    test("workspaces are isolated; listing is newest update first with a total", async () => {
      await a.presets.createVersion(input("iso", { workspaceId: "ws-iso", now: 1 }));
      await a.presets.createVersion(input("iso2", { workspaceId: "ws-iso", now: 2 }));
      expect(await a.presets.get("ws-other", "iso")).toBeUndefined();
      const listed = await a.presets.list("ws-iso", { offset: 0, limit: 10 });
      expect(listed.total).toBe(2);
      expect(listed.presets.map((p) => p.slug)).toEqual(["iso2", "iso"]);
      expect((await a.presets.list("ws-iso", { offset: 1, limit: 10 })).presets.map((p) => p.slug)).toEqual(["iso"]);
    });

    test("delete removes the preset and its versions; a later create starts again at version 1", async () => {
      await a.presets.createVersion(input("gone"));
      await a.presets.createVersion(input("gone"));
      expect(await a.presets.delete("ws-1", "gone")).toBe(true);
      expect(await a.presets.delete("ws-1", "gone")).toBe(false);
      expect(await a.presets.get("ws-1", "gone")).toBeUndefined();
      const again = await a.presets.createVersion(input("gone"));
      expect(again !== "conflict" && again.designatedVersion.version).toBe(1);
    });
  });
}
