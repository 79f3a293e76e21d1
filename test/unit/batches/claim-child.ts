/** Child process of claim-processes.test.ts: claims items of one batch until none is left, prints what it got. */
import { openStore } from "../../../core/store/connect.ts";

const [url, batchId, worker] = process.argv.slice(2);
if (!url || !batchId || !worker) throw new Error("usage: claim-child.ts <database-url> <batch-id> <worker>");
const store = await openStore(url);
const claimed: string[] = [];
for (;;) {
  const items = await store.batches.claim(batchId, worker, 2, Date.now(), 60_000);
  if (items.length === 0) break;
  for (const item of items) {
    claimed.push(item.id);
    // Hold the item a moment, like a running request, so the other process gets its turn.
    await Bun.sleep(2);
    if (!(await store.batches.finish(item.id, worker, { status: "completed", result: { by: worker } }, Date.now()))) throw new Error(`lost ${item.id}`);
  }
}
await store.close();
process.stdout.write(JSON.stringify(claimed));
