/** A container's files (the id comes from a tool result or a generation's pipeline entries): list and read them. */
import { api, apiText } from "../api.ts";
import { clear, field, h, status, table } from "../dom.ts";

interface ContainerFile {
  id: string;
  path: string;
  bytes: number;
  created_at: number;
}

export function containersView(root: HTMLElement): void {
  const id = h("input", { type: "text", placeholder: "ctr_…", autocomplete: "off", required: true });
  const note = status();
  const list = h("div");
  const content = h("pre", { class: "file", tabIndex: -1 });
  const form = h("form", { class: "inline", on: { submit: (e) => (e.preventDefault(), void load()) } }, field("Container id", id), h("button", { type: "submit" }, "Open"));

  async function load(): Promise<void> {
    clear(list);
    content.textContent = "";
    try {
      const { data } = await api<{ data: ContainerFile[] }>(`/containers/${encodeURIComponent(id.value.trim())}/files?limit=1000`);
      note.textContent = `${data.length} file${data.length === 1 ? "" : "s"}.`;
      list.append(table(["Path", "Bytes", ""], data.map((f) => [f.path, f.bytes, h("button", { type: "button", on: { click: () => void read(f) } }, `Open ${f.path}`)])));
    } catch (error) {
      note.textContent = (error as Error).message;
    }
  }

  async function read(file: ContainerFile): Promise<void> {
    content.textContent = await apiText(`/containers/${encodeURIComponent(id.value.trim())}/files/${encodeURIComponent(file.id)}/content`);
    content.focus();
  }

  root.append(h("h2", {}, "Containers"), form, note, list, content);
}
