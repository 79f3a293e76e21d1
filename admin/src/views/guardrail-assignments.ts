/**
 * Where one guardrail applies: every key of the workspace (the API's stand-in for the peer's members) and chosen
 * keys. Each box assigns or removes at once (`POST /guardrails/{id}/assignments/{keys|workspace}[/remove]`).
 */
import { allPages, api } from "../api.ts";
import { h, status } from "../dom.ts";

interface Key {
  hash: string;
  name: string;
  label: string;
  disabled: boolean;
}

export function assignmentsPanel(guardrail: { id: string; name: string }, changed: () => void): HTMLElement {
  const note = status();
  const boxes = h("div", { class: "checks" });
  const base = `/guardrails/${encodeURIComponent(guardrail.id)}/assignments`;

  function toggle(text: string, checked: boolean, apply: (on: boolean) => Promise<unknown>): HTMLElement {
    const box = h("input", { type: "checkbox", checked });
    box.addEventListener("change", () => {
      const on = box.checked;
      box.disabled = true;
      apply(on)
        .then(
          () => {
            note.textContent = `${guardrail.name} ${on ? "assigned to" : "removed from"} ${text}.`;
            changed();
          },
          (error: Error) => {
            box.checked = !on;
            note.textContent = `Not changed: ${error.message}`;
          },
        )
        .finally(() => (box.disabled = false));
    });
    return h("label", { class: "check" }, box, ` ${text}`);
  }

  async function load(): Promise<void> {
    const [keys, assigned, workspace] = await Promise.all([
      allPages<Key>("/keys?include_disabled=true"),
      allPages<{ key_hash: string }>(`${base}/keys?limit=100`),
      allPages<unknown>(`${base}/workspace?limit=100`),
    ]);
    const on = new Set(assigned.map((a) => a.key_hash));
    boxes.replaceChildren(
      toggle("every key of this workspace", workspace.length > 0, (yes) => api(`${base}/workspace${yes ? "" : "/remove"}`, { method: "POST", json: {} })),
      ...keys.map((key) =>
        toggle(`${key.name} (${key.label})${key.disabled ? ", disabled" : ""}`, on.has(key.hash), (yes) =>
          api(`${base}/keys${yes ? "" : "/remove"}`, { method: "POST", json: { key_hashes: [key.hash] } }),
        ),
      ),
    );
    if (keys.length === 0) boxes.append(h("p", {}, "No keys yet."));
  }

  void load().catch((error: Error) => (note.textContent = error.message));
  return h("fieldset", { class: "assignments" }, h("legend", {}, `Assigned to`), boxes, note);
}
