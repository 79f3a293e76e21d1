/**
 * The workspace's live containers (`GET /containers`) and a container's files: list them, read one. A container
 * can also be opened by id (from a tool result or a generation's pipeline entries).
 */
import { api, apiText } from "../api.ts";
import { clear, field, h, status, table, when } from "../dom.ts";

interface Container {
  id: string;
  last_active_at: number;
  expires_at: number;
}

interface ContainerFile {
  id: string;
  path: string;
  bytes: number;
  created_at: number;
}

export function containersView(root: HTMLElement): void {
  const live = h("div");
  const liveNote = status();
  const id = h("input", { type: "text", placeholder: "ctr_…", autocomplete: "off", required: true });
  const note = status();
  const list = h("div");
  const content = h("pre", { class: "file", tabIndex: -1 });
  const form = h("form", { class: "inline", on: { submit: (e) => (e.preventDefault(), void load()) } }, field("Container id", id), h("button", { type: "submit" }, "Open"));

  async function loadLive(): Promise<void> {
    clear(live);
    try {
      const { data } = await api<{ data: Container[] }>("/containers?limit=100");
      liveNote.textContent = `${data.length} live container${data.length === 1 ? "" : "s"}${data.length === 100 ? " (the first 100)" : ""}.`;
      const open = (c: Container) => h("button", { type: "button", "aria-label": `Files of ${c.id}`, on: { click: () => ((id.value = c.id), void load()) } }, "Files");
      live.append(table(["Id", "Last active", "Expires", ""], data.map((c) => [c.id, when(c.last_active_at), when(c.expires_at), open(c)]), "Live containers"));
    } catch (error) {
      liveNote.textContent = (error as Error).message;
    }
  }

  async function load(): Promise<void> {
    clear(list);
    content.textContent = "";
    try {
      const { data } = await api<{ data: ContainerFile[] }>(`/containers/${encodeURIComponent(id.value.trim())}/files?limit=1000`);
      note.textContent = `${data.length} file${data.length === 1 ? "" : "s"} in ${id.value.trim()}.`;
      list.append(table(["Path", "Bytes", ""], data.map((f) => [f.path, f.bytes, h("button", { type: "button", on: { click: () => void read(f) } }, `Open ${f.path}`)])));
    } catch (error) {
      note.textContent = (error as Error).message;
    }
  }

  async function read(file: ContainerFile): Promise<void> {
    content.textContent = await apiText(`/containers/${encodeURIComponent(id.value.trim())}/files/${encodeURIComponent(file.id)}/content`);
    content.focus();
  }

  root.append(h("h2", {}, "Containers"), liveNote, live, form, note, list, content);
  void loadLive();
}
