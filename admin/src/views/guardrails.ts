/**
 * Guardrails (README "Guardrails"): the workspace's list with what each does and where it applies, a form to create
 * one, and for one guardrail its editor (every field the API lets a PATCH set) and its assignments; delete.
 */
import { allPages, api } from "../api.ts";
import { clear, h, status, table, usd } from "../dom.ts";
import { assignmentsPanel } from "./guardrail-assignments.ts";
import { guardrailForm, type Guardrail } from "./guardrail-form.ts";

interface Listed extends Guardrail {
  usage_usd?: number;
}

function budget(g: Listed): string {
  if (g.limit_usd === null) return "none";
  return `${usd(g.limit_usd)} ${g.reset_interval ?? "lifetime"}`;
}

function filters(g: Listed): string {
  const parts = g.content_filter_builtins.map((b) => `${b.slug}: ${b.action}`);
  if (g.content_filters.length > 0) parts.push(`${g.content_filters.length} pattern${g.content_filters.length === 1 ? "" : "s"}`);
  return parts.length === 0 ? "none" : `${parts.join(", ")} (${g.apply_to})`;
}

function models(g: Listed): string {
  const parts: string[] = [];
  if (g.allowed_models) parts.push(`only ${g.allowed_models.join(", ")}`);
  if (g.ignored_models) parts.push(`not ${g.ignored_models.join(", ")}`);
  if (g.allowed_providers) parts.push(`providers ${g.allowed_providers.join(", ")}`);
  if (g.ignored_providers) parts.push(`not providers ${g.ignored_providers.join(", ")}`);
  return parts.length === 0 ? "any" : parts.join("; ");
}

export function guardrailsView(root: HTMLElement): void {
  const list = h("div");
  const note = status();
  const editor = h("section", { class: "editor", "aria-label": "Guardrail editor", tabIndex: -1 });

  function create(): void {
    clear(editor);
    editor.append(
      h("h3", {}, "New guardrail"),
      guardrailForm({
        submit: "Create guardrail",
        onSubmit: async (body) => {
          const { data } = await api<{ data: Listed }>("/guardrails", { method: "POST", json: body });
          note.textContent = `${data.name} created: it applies nowhere until assigned.`;
          await load();
          await edit(data.id);
        },
      }),
    );
  }

  async function edit(id: string): Promise<void> {
    const { data: g } = await api<{ data: Listed }>(`/guardrails/${encodeURIComponent(id)}`);
    clear(editor);
    const span = { daily: "today", weekly: "this week", monthly: "this month" }[g.reset_interval ?? "daily"];
    const spent = g.usage_usd === undefined || g.limit_usd === null ? "" : ` (${usd(g.usage_usd)} of ${usd(g.limit_usd)} spent ${g.reset_interval ? span : "in all"})`;
    editor.append(
      h("h3", {}, `Edit ${g.name}`),
      h("p", { class: "hint" }, `${g.id}${spent}`),
      guardrailForm({
        guardrail: g,
        submit: "Save changes",
        onSubmit: async (body) => {
          const { data } = await api<{ data: Listed }>(`/guardrails/${encodeURIComponent(g.id)}`, { method: "PATCH", json: body });
          note.textContent = `${data.name} saved.`;
          await load();
        },
      }),
      assignmentsPanel(g, () => void load()),
      h("button", { type: "button", on: { click: create } }, "New guardrail"),
    );
    editor.focus();
  }

  async function remove(g: Listed): Promise<void> {
    if (!confirm(`Delete the guardrail "${g.name}"? Its assignments go with it.`)) return;
    await api(`/guardrails/${encodeURIComponent(g.id)}`, { method: "DELETE" });
    note.textContent = `${g.name} deleted.`;
    if (editor.querySelector("h3")?.textContent === `Edit ${g.name}`) create();
    await load();
  }

  async function load(): Promise<void> {
    const [guardrails, keyAssignments, workspaceAssignments] = await Promise.all([
      allPages<Listed>("/guardrails?limit=100"),
      allPages<{ guardrail_id: string; key_name: string; key_hash: string }>("/guardrails/assignments/keys?limit=100"),
      allPages<{ guardrail_id: string }>("/guardrails/assignments/workspace?limit=100"),
    ]);
    const everyKey = new Set(workspaceAssignments.map((a) => a.guardrail_id));
    const keysOf = (id: string) => keyAssignments.filter((a) => a.guardrail_id === id).map((a) => a.key_name || a.key_hash.slice(0, 12));
    const assigned = (g: Listed) => [...(everyKey.has(g.id) ? ["every key"] : []), ...keysOf(g.id)].join(", ") || "nowhere";
    clear(list);
    if (guardrails.length === 0) {
      list.append(h("p", {}, "No guardrails yet."));
      return;
    }
    list.append(
      table(
        ["Name", "Budget", "Filters", "Models", "Assigned to", ""],
        guardrails.map((g) => [
          g.name,
          budget(g),
          filters(g),
          models(g),
          assigned(g),
          h(
            "span",
            { class: "actions" },
            h("button", { type: "button", on: { click: () => void edit(g.id).catch((e: Error) => (note.textContent = e.message)) } }, `Edit ${g.name}`),
            h("button", { type: "button", class: "danger", on: { click: () => void remove(g).catch((e: Error) => (note.textContent = e.message)) } }, `Delete ${g.name}`),
          ),
        ]),
        "Guardrails of this workspace",
      ),
    );
  }

  root.append(h("h2", {}, "Guardrails"), note, list, editor);
  create();
  // Unhandled like the other views' first load: a refused key sends the user back to sign in (main.ts).
  void load();
}
