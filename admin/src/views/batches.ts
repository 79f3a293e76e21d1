/** Batches with live progress bars (polled while any runs) and, once finished, their results. */
import { api } from "../api.ts";
import { clear, h, status, when } from "../dom.ts";
import { batchBar, type RequestCounts } from "./batch-bar.ts";

interface Batch {
  id: string;
  endpoint: string;
  model: string | null;
  status: string;
  created_at: number;
  request_counts: RequestCounts;
  results?: Array<Record<string, unknown>> | null;
}

const TERMINAL = new Set(["completed", "failed", "expired", "cancelled"]);

export function batchesView(root: HTMLElement): () => void {
  const list = h("div", { class: "batches" });
  const results = h("section", { "aria-label": "Batch results", tabIndex: -1 });
  const note = status();
  let timer: number | undefined;
  let stopped = false;

  async function load(): Promise<void> {
    const { data } = await api<{ data: Batch[] }>("/batches?limit=50");
    clear(list);
    if (data.length === 0) list.append(h("p", {}, "No batches yet."));
    for (const batch of data) {
      list.append(
        h(
          "article",
          { class: "batch", "data-batch": batch.id, "data-status": batch.status },
          h("h3", {}, `${batch.id} `, h("span", { class: `badge ${batch.status}` }, batch.status)),
          h("p", {}, `${batch.endpoint}${batch.model ? ` · ${batch.model}` : ""} · created ${when(batch.created_at)}`),
          batchBar(batch.id, batch.request_counts, TERMINAL.has(batch.status)),
          TERMINAL.has(batch.status) ? h("button", { type: "button", on: { click: () => void open(batch.id) } }, `Results of ${batch.id}`) : null,
        ),
      );
    }
    if (!stopped && data.some((b) => !TERMINAL.has(b.status))) timer = window.setTimeout(() => void load(), 1000);
  }

  async function open(id: string): Promise<void> {
    const batch = await api<Batch>(`/batches/${id}`);
    clear(results);
    results.append(h("h3", {}, `Results of ${id}`), h("pre", {}, JSON.stringify(batch.results ?? [], null, 2)));
    results.focus();
  }

  root.append(h("h2", {}, "Batches"), note, list, results);
  void load().catch((error: Error) => (note.textContent = error.message));
  return () => {
    stopped = true;
    if (timer !== undefined) clearTimeout(timer);
  };
}
