/**
 * `GET /key` is exact while the usage ledger flushes. A key's credit window counter is
 * seeded from what the store holds plus what the ledger has not written yet — on first use, and again whenever the
 * kv lost it (a Redis restarted without persistence). A flush landing between those two reads used to count its
 * batch twice, and the counter kept the wrong seed for the whole window: `usage_window` too high, `limit_remaining`
 * too low. The store is slowed and the counter dropped on purpose, so the flush lands exactly there.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { createMemoryKv } from "../../../core/kv/memory.ts";
import { openStore } from "../../../core/store/connect.ts";
import { ADMIN_KEY, startTestGateway, type TestGateway } from "../../support/gateway.ts";

type Json = Record<string, any>;

let gw: TestGateway;
/** While closed, ledger writes wait (their records stay pending); it opens when the window is read (or by hand). */
let gate: { closed: boolean; open(): void; opened: Promise<void> } | undefined;
/** Set: the kv loses the next credit counter read (as a restarted Redis would). */
let forgetCounter = false;

function closeGate(): void {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  gate = {
    closed: true,
    open: () => {
      if (gate) gate.closed = false;
      open();
    },
    opened,
  };
}

beforeAll(async () => {
  const store = await openStore("sqlite://:memory:");
  const generations = {
    ...store.generations,
    bill: async (records: Parameters<typeof store.generations.bill>[0]) => {
      if (gate?.closed) await gate.opened;
      return store.generations.bill(records);
    },
    // The window's stored spending: the ledger's write is let through as this read starts, and lands during it.
    costSince: async (keyHash: string, since: number) => {
      if (gate?.closed) {
        gate.open();
        await Bun.sleep(100);
      }
      return store.generations.costSince(keyHash, since);
    },
  };
  const memory = createMemoryKv();
  const kv = new Proxy(memory, {
    get(target, name) {
      if (name !== "get") return Reflect.get(target, name, target);
      return async (key: string) => {
        if (forgetCounter && key.startsWith("gw:credits:spent:")) {
          forgetCounter = false;
          await target.del(key);
        }
        return target.get(key);
      };
    },
  });
  gw = await startTestGateway({ overrides: { store: { ...store, generations }, kv } });
});

afterAll(() => gw.close());

const ask = (key: string, text: string) =>
  gw.request("/chat/completions", { key, method: "POST", json: { model: "simulator/small", max_tokens: 20, messages: [{ role: "user", content: text }] } });

describe("GET /key while the ledger flushes", () => {
  test("the credit window counts every request once, also when its counter is seeded again mid-flush", async () => {
    const created = (await (await gw.request("/keys", { key: ADMIN_KEY, method: "POST", json: { name: "flushing", limit: 1, limit_reset: "daily" } })).json()) as { key: string };
    let spent = ((await (await ask(created.key, "first")).json()) as Json).usage.cost as number;
    closeGate();
    // Served while ledger writes wait: their records are pending, and the ledger's next flush is under way (held).
    for (let i = 0; i < 3; i++) spent += ((await (await ask(created.key, `question ${i}`)).json()) as Json).usage.cost;
    await Bun.sleep(300);
    // The counter is gone: the next request seeds it again from the store and the pending records, as the flush lands.
    forgetCounter = true;
    const last = ask(created.key, "last");
    // A seed that waits for the flush first never opens the gate by reading: it is opened for it.
    setTimeout(() => gate?.open(), 300);
    spent += ((await (await last).json()) as Json).usage.cost;
    expect(spent).toBeGreaterThan(0);
    await Bun.sleep(500); // every record written
    const me = ((await (await gw.request("/key", { key: created.key })).json()) as { data: Json }).data;
    expect(me.usage).toBeCloseTo(spent, 12);
    expect(me.usage_daily).toBeCloseTo(spent, 12);
    expect(me.usage_window).toBeCloseTo(spent, 12);
    expect(me.limit_remaining).toBeCloseTo(1 - spent, 12);
  });
});
