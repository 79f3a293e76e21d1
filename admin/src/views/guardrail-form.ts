/**
 * The form that creates or edits a guardrail (README "Guardrails"): name, description, budget, which side the
 * filters read, model and provider lists, the built-in detectors and custom patterns with their actions. It sends
 * every field it shows (a PATCH replaces collections), so what the form shows is what the guardrail becomes.
 */
import { field, h, status } from "../dom.ts";

export type Action = "block" | "redact" | "flag";

export interface Guardrail {
  id: string;
  name: string;
  description: string | null;
  limit_usd: number | null;
  reset_interval: "daily" | "weekly" | "monthly" | null;
  allowed_models: string[] | null;
  ignored_models: string[] | null;
  allowed_providers: string[] | null;
  ignored_providers: string[] | null;
  content_filters: Array<{ pattern: string; action: Action; label: string | null }>;
  content_filter_builtins: Array<{ slug: string; action: Action; scan_scope?: "user_only" | "all_messages"; label?: string }>;
  apply_to: "input" | "output" | "both";
}

/** The built-in detectors the README lists; a guardrail's own (a newer gateway's) are shown too. */
const BUILTINS = ["email", "phone", "ssn", "credit-card", "ip-address", "person-name", "address", "regex-prompt-injection", "secrets"];
const ACTIONS: Action[] = ["flag", "redact", "block"];

/** A select of `[value, text]` choices with `selected` chosen. */
function choice(values: ReadonlyArray<readonly [string, string]>, selected: string): HTMLSelectElement {
  const select = h("select", {}, ...values.map(([value, text]) => h("option", { value }, text)));
  select.value = selected;
  return select;
}

/** `a, b` ⇄ `["a", "b"]`; empty is null (no list: nothing allowed or ignored by it). */
const listText = (list: string[] | null) => (list ?? []).join(", ");
function listOf(text: string): string[] | null {
  const items = text.split(/[,\n]/).map((s) => s.trim()).filter(Boolean);
  return items.length === 0 ? null : items;
}

export function guardrailForm(init: { guardrail?: Guardrail; submit: string; onSubmit: (body: Record<string, unknown>) => Promise<void> }): HTMLFormElement {
  const g = init.guardrail;
  const note = status();
  const name = h("input", { type: "text", required: true, maxLength: 200, autocomplete: "off", value: g?.name ?? "" });
  const description = h("input", { type: "text", maxLength: 1000, autocomplete: "off", value: g?.description ?? "" });
  const limit = h("input", { type: "number", min: "0", step: "0.01", inputMode: "decimal", value: g?.limit_usd === null || g?.limit_usd === undefined ? "" : String(g.limit_usd) });
  const reset = choice([["", "never (lifetime)"], ["daily", "daily"], ["weekly", "weekly"], ["monthly", "monthly"]], g?.reset_interval ?? "");
  const applyTo = choice([["input", "prompts (input)"], ["output", "answers (output)"], ["both", "both"]], g?.apply_to ?? "input");
  const lists = {
    allowed_models: h("input", { type: "text", autocomplete: "off", placeholder: "any (e.g. simulator/*, openai/gpt-4o)", value: listText(g?.allowed_models ?? null) }),
    ignored_models: h("input", { type: "text", autocomplete: "off", placeholder: "none", value: listText(g?.ignored_models ?? null) }),
    allowed_providers: h("input", { type: "text", autocomplete: "off", placeholder: "any", value: listText(g?.allowed_providers ?? null) }),
    ignored_providers: h("input", { type: "text", autocomplete: "off", placeholder: "none", value: listText(g?.ignored_providers ?? null) }),
  };

  const current = new Map((g?.content_filter_builtins ?? []).map((b) => [b.slug, b]));
  const builtins = [...new Set([...BUILTINS, ...current.keys()])].map((slug) => ({
    slug,
    select: choice([["", "off"], ...ACTIONS.map((a) => [a, a] as const)], current.get(slug)?.action ?? ""),
  }));

  const patternRows = h("div", { class: "patterns" });
  const patterns: Array<{ row: HTMLElement; pattern: HTMLInputElement; action: HTMLSelectElement; label: HTMLInputElement }> = [];
  // Rows are named by their place ("Pattern 2", "Remove pattern 2"), renamed when one above goes.
  const renumber = () =>
    patterns.forEach((p, i) => {
      const [pattern, action, label] = p.row.querySelectorAll("label");
      pattern!.textContent = `Pattern ${i + 1}`;
      action!.textContent = `Action of pattern ${i + 1}`;
      label!.textContent = `Label of pattern ${i + 1}`;
      p.row.querySelector("button")!.textContent = `Remove pattern ${i + 1}`;
    });
  const addPattern = (value?: Guardrail["content_filters"][number]) => {
    const entry = {
      pattern: h("input", { type: "text", required: true, autocomplete: "off", spellcheck: false, placeholder: "RE2, e.g. secret-[0-9]+", value: value?.pattern ?? "" }),
      action: choice(ACTIONS.map((a) => [a, a] as const), value?.action ?? "block"),
      label: h("input", { type: "text", maxLength: 64, autocomplete: "off", value: value?.label ?? "" }),
      row: h("div", { class: "inline pattern" }),
    };
    const remove = h("button", { type: "button", on: { click: () => (patterns.splice(patterns.indexOf(entry), 1), entry.row.remove(), renumber()) } });
    entry.row.append(field("", entry.pattern), field("", entry.action), field("", entry.label), remove);
    patterns.push(entry);
    patternRows.append(entry.row);
    renumber();
    return entry;
  };
  for (const f of g?.content_filters ?? []) addPattern(f);

  function body(): Record<string, unknown> {
    return {
      name: name.value.trim(),
      description: description.value.trim() || null,
      limit_usd: limit.value === "" ? null : Number(limit.value),
      reset_interval: reset.value || null,
      apply_to: applyTo.value,
      ...Object.fromEntries(Object.entries(lists).map(([key, input]) => [key, listOf(input.value)])),
      content_filter_builtins: builtins
        .filter((b) => b.select.value !== "")
        // Kept as they were: what this form does not show (scan scope, label) of a detector left on.
        .map((b) => ({ ...current.get(b.slug), slug: b.slug, action: b.select.value })),
      content_filters: patterns.map((p) => ({ pattern: p.pattern.value, action: p.action.value, label: p.label.value.trim() || null })),
    };
  }

  const form = h(
    "form",
    {
      class: "guardrail",
      on: {
        submit: (event) => {
          event.preventDefault();
          note.textContent = "";
          init.onSubmit(body()).catch((error: Error) => (note.textContent = `Not saved: ${error.message}`));
        },
      },
    },
    h("div", { class: "inline" }, field("Name", name), field("Description", description)),
    h("div", { class: "inline" }, field("Budget (USD)", limit), field("Budget resets", reset), field("Filters check", applyTo)),
    h(
      "div",
      { class: "inline" },
      field("Allowed models", lists.allowed_models),
      field("Ignored models", lists.ignored_models),
      field("Allowed providers", lists.allowed_providers),
      field("Ignored providers", lists.ignored_providers),
    ),
    h("fieldset", {}, h("legend", {}, "Built-in detectors"), h("div", { class: "inline" }, ...builtins.map((b) => field(b.slug, b.select)))),
    h(
      "fieldset",
      {},
      h("legend", {}, "Patterns"),
      patternRows,
      h("button", { type: "button", on: { click: () => addPattern().pattern.focus() } }, "Add a pattern"),
    ),
    h("button", { type: "submit" }, init.submit),
    note,
  );
  return form;
}
