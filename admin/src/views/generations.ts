/** The generation log with filters, and one generation's details: attempts, pipeline entries, warnings, cost. */
import { api } from "../api.ts";
import { clear, field, h, status, table, usd, when } from "../dom.ts";

interface Generation {
  id: string;
  model: string;
  provider_name: string | null;
  status: number;
  finish_reason: string | null;
  error_type: string | null;
  tokens_prompt: number;
  tokens_completion: number;
  total_cost: number;
  generation_time: number;
  latency: number | null;
  created_at: string;
  streamed: boolean;
  format: string;
  attempts?: Array<{ model: string; provider: string; status: number | null; error_type: string | null; ms: number | null }>;
  pipeline?: Array<Record<string, unknown>>;
  warnings?: Array<{ code: string; field?: string; message: string }>;
}

export function generationsView(root: HTMLElement): void {
  const model = h("input", { type: "text", placeholder: "any", autocomplete: "off" });
  const provider = h("input", { type: "text", placeholder: "any", autocomplete: "off" });
  const outcome = h("select", {}, h("option", { value: "" }, "any"), h("option", { value: "success" }, "success"), h("option", { value: "error" }, "error"));
  const list = h("div");
  const more = h("button", { type: "button", hidden: true, on: { click: () => void load(false) } }, "Older");
  const details = h("section", { class: "details", "aria-label": "Generation details", tabIndex: -1 });
  const note = status();
  let cursor: string | null = null;
  let rows: Generation[] = [];

  const filters = h(
    "form",
    { class: "inline", on: { submit: (e) => (e.preventDefault(), void load(true)) } },
    field("Model", model),
    field("Provider", provider),
    field("Outcome", outcome),
    h("button", { type: "submit" }, "Show"),
  );

  async function load(fresh: boolean): Promise<void> {
    const query = new URLSearchParams({ limit: "50" });
    if (model.value) query.set("model", model.value);
    if (provider.value) query.set("provider", provider.value);
    if (outcome.value) query.set("status", outcome.value);
    if (!fresh && cursor) query.set("cursor", cursor);
    const page = await api<{ data: Generation[]; next_cursor: string | null }>(`/generations?${query}`);
    rows = fresh ? page.data : [...rows, ...page.data];
    cursor = page.next_cursor;
    more.hidden = cursor === null;
    clear(list);
    note.textContent = `${rows.length} generation${rows.length === 1 ? "" : "s"}.`;
    list.append(
      table(
        ["When", "Model", "Provider", "Status", "Tokens in/out", "Cost", ""],
        rows.map((g) => [
          when(g.created_at),
          g.model,
          g.provider_name ?? "—",
          g.error_type ? `${g.status} ${g.error_type}` : String(g.status),
          `${g.tokens_prompt} / ${g.tokens_completion}`,
          usd(g.total_cost),
          h("button", { type: "button", "data-generation": g.id, on: { click: () => void open(g.id) } }, "Details"),
        ]),
        "Generations, newest first",
      ),
    );
  }

  async function open(id: string): Promise<void> {
    const { data: g } = await api<{ data: Generation }>(`/generation?id=${encodeURIComponent(id)}`);
    clear(details);
    details.append(
      h("h3", {}, `Generation ${g.id}`),
      h(
        "dl",
        {},
        ...pairs({
          Model: g.model,
          Provider: g.provider_name ?? "—",
          Format: g.format,
          Streamed: g.streamed ? "yes" : "no",
          Status: `${g.status}${g.error_type ? ` (${g.error_type})` : ""}`,
          Finish: g.finish_reason ?? "—",
          Tokens: `${g.tokens_prompt} in, ${g.tokens_completion} out`,
          Cost: usd(g.total_cost),
          Duration: `${g.generation_time} ms${g.latency !== null ? `, first token ${g.latency} ms` : ""}`,
        }),
      ),
      h("h4", {}, "Attempts"),
      table(["Model", "Provider", "Status", "Error", "ms"], (g.attempts ?? []).map((a) => [a.model, a.provider, a.status ?? "—", a.error_type ?? "—", a.ms ?? "—"])),
      h("h4", {}, "Pipeline"),
      (g.pipeline ?? []).length === 0 ? h("p", {}, "No pipeline entries.") : h("pre", {}, JSON.stringify(g.pipeline, null, 2)),
      h("h4", {}, "Warnings"),
      (g.warnings ?? []).length === 0 ? h("p", {}, "None.") : h("ul", {}, ...(g.warnings ?? []).map((w) => h("li", {}, `${w.code}${w.field ? ` (${w.field})` : ""}: ${w.message}`))),
    );
    details.focus();
  }

  root.append(h("h2", {}, "Generations"), filters, note, list, more, details);
  void load(true);
}

function pairs(values: Record<string, string>): HTMLElement[] {
  return Object.entries(values).flatMap(([k, v]) => [h("dt", {}, k), h("dd", {}, v)]);
}
