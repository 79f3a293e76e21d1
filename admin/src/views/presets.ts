/** Presets with their versions, and a line diff between two versions' configuration. */
import { api } from "../api.ts";
import { clear, field, h, status } from "../dom.ts";
import { diffLines } from "../diff.ts";

interface Version {
  version: number;
  config: Record<string, unknown>;
  system_prompt: string;
  created_at: string;
}

interface Preset {
  slug: string;
  name: string;
  updated_at: string;
  designated_version: Version;
}

export function presetsView(root: HTMLElement): void {
  const note = status();
  const slug = h("select", { on: { change: () => void versions() } });
  const left = h("select");
  const right = h("select");
  const output = h("div", { class: "diff", "aria-live": "polite" });
  const form = h(
    "form",
    { class: "inline", on: { submit: (e) => (e.preventDefault(), void diff()) } },
    field("Preset", slug),
    field("From version", left),
    field("To version", right),
    h("button", { type: "submit" }, "Compare"),
  );

  async function load(): Promise<void> {
    const { data } = await api<{ data: Preset[] }>("/presets?limit=100");
    clear(slug);
    for (const preset of data) slug.append(h("option", { value: preset.slug }, `${preset.name || preset.slug} (v${preset.designated_version.version})`));
    note.textContent = data.length === 0 ? "No presets yet." : "";
    if (data.length > 0) await versions();
  }

  async function versions(): Promise<void> {
    const { data } = await api<{ data: Version[] }>(`/presets/${encodeURIComponent(slug.value)}/versions?limit=100`);
    for (const select of [left, right]) {
      clear(select);
      for (const v of data) select.append(h("option", { value: String(v.version) }, `v${v.version} · ${new Date(v.created_at).toLocaleString()}`));
    }
    if (data.length > 1) left.value = String(data.at(-2)!.version);
    if (data.length > 0) right.value = String(data.at(-1)!.version);
  }

  async function diff(): Promise<void> {
    const get = (n: string) => api<{ data: Version }>(`/presets/${encodeURIComponent(slug.value)}/versions/${n}`).then((r) => r.data);
    const [a, b] = await Promise.all([get(left.value), get(right.value)]);
    const text = (v: Version) => JSON.stringify({ system_prompt: v.system_prompt, ...v.config }, null, 2);
    clear(output);
    const lines = diffLines(text(a), text(b));
    output.append(
      h("p", {}, `v${a.version} → v${b.version}: ${lines.filter((l) => l.kind === "added").length} added, ${lines.filter((l) => l.kind === "removed").length} removed`),
      h("pre", {}, ...lines.map((l) => h("span", { class: `line ${l.kind}` }, `${l.kind === "added" ? "+ " : l.kind === "removed" ? "- " : "  "}${l.text}\n`))),
    );
  }

  root.append(h("h2", {}, "Presets"), note, form, output);
  void load();
}
