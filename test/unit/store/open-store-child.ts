/** Child process for the multi-process tests: opens the store at argv[2], ensures the default workspace, adds a key. */
import { openStore } from "../../../core/store/connect.ts";

const url = process.argv[2];
if (!url) throw new Error("usage: open-store-child.ts <DATABASE_URL>");
const store = await openStore(url);
const workspace = await store.workspaces.ensureDefault();
await store.keys.create({
  hash: `child-${process.pid}-${crypto.randomUUID()}`,
  workspaceId: workspace.id,
  name: "child",
  label: "child",
  isManagement: false,
  limit: null,
  limitReset: null,
  expiresAt: null,
});
await store.close();
// One line the parent compares across children: the same row everywhere.
console.log(JSON.stringify(workspace));
