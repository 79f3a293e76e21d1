/**
 * The operator's workspace switcher: a select of every workspace (GET /workspaces), whose choice every later
 * management call names with `?workspace_id=` (api.ts). Only the operator's keys see more than one workspace in that
 * list (a workspace's own management key sees its own only, README "Workspaces"), so the switcher appears only then;
 * a manager's page shows no switcher and acts in its own workspace, as the server scopes it anyway.
 */
import { allPages, chooseWorkspace, chosenWorkspace } from "./api.ts";
import { field, h } from "./dom.ts";

interface Workspace {
  id: string;
  name: string;
  slug: string;
}

/** Fills `slot` with the switcher when the key sees several workspaces; `changed` re-renders the current view. */
export async function workspaceSwitcher(slot: HTMLElement, changed: () => void): Promise<void> {
  let workspaces: Workspace[];
  try {
    workspaces = await allPages<Workspace>("/workspaces?limit=100", 100, 1_000);
  } catch {
    return; // No list, no switcher: the page stays in the key's own workspace.
  }
  if (workspaces.length < 2) {
    if (chosenWorkspace() !== null) {
      chooseWorkspace(null);
      changed();
    }
    return;
  }
  let current = chosenWorkspace();
  if (current !== null && !workspaces.some((w) => w.id === current)) {
    // The chosen workspace is gone (deleted meanwhile): back to the key's own.
    chooseWorkspace(null);
    current = null;
    changed();
  }
  // The operator's keys live in the default workspace, where they act without naming one.
  const own = workspaces.find((w) => w.slug === "default") ?? workspaces[0]!;
  const select = h(
    "select",
    {
      on: {
        change: () => {
          chooseWorkspace(select.value === own.id ? null : select.value);
          changed();
        },
      },
    },
    ...workspaces.map((w) => h("option", { value: w.id }, w.slug === w.name ? w.name : `${w.name} (${w.slug})`)),
  );
  select.value = current ?? own.id;
  slot.replaceChildren(field("Workspace", select));
}
