/** Keys: list, create (limit, reset period, expiry; the secret shown once with a copy button), disable, delete. */
import { api } from "../api.ts";
import { clear, field, h, status, table, usd, when } from "../dom.ts";

interface Key {
  hash: string;
  name: string;
  label: string;
  disabled: boolean;
  limit: number | null;
  limit_reset: string | null;
  usage: number;
  expires_at: string | null;
}

export function keysView(root: HTMLElement): void {
  const list = h("div");
  const note = status();
  const secretBox = h("div", { class: "secret", hidden: true });
  const name = h("input", { type: "text", required: true, maxLength: 256, autocomplete: "off" });
  const limit = h("input", { type: "number", min: "0", step: "0.01", inputMode: "decimal" });
  const reset = h("select", {}, h("option", { value: "" }, "never"), h("option", { value: "daily" }, "daily"), h("option", { value: "weekly" }, "weekly"), h("option", { value: "monthly" }, "monthly"));
  const expires = h("input", { type: "date" });
  const form = h(
    "form",
    {
      class: "inline",
      on: {
        submit: (event) => {
          event.preventDefault();
          void create();
        },
      },
    },
    field("Name", name),
    field("Credit limit (USD)", limit),
    field("Limit resets", reset),
    field("Expires on", expires),
    h("button", { type: "submit" }, "Create key"),
  );

  async function create(): Promise<void> {
    const body: Record<string, unknown> = { name: name.value };
    if (limit.value !== "") body.limit = Number(limit.value);
    if (reset.value !== "") body.limit_reset = reset.value;
    if (expires.value !== "") body.expires_at = expires.value;
    try {
      const created = await api<{ key: string; data: Key }>("/keys", { method: "POST", json: body });
      showSecret(created.key, created.data.name);
      form.reset();
      await load();
    } catch (error) {
      note.textContent = `Could not create the key: ${(error as Error).message}`;
    }
  }

  function showSecret(secret: string, keyName: string): void {
    const code = h("code", { class: "secret-value", "data-testid": "new-secret" }, secret);
    const copied = status();
    const copy = h(
      "button",
      {
        type: "button",
        on: {
          click: () => {
            navigator.clipboard.writeText(secret).then(
              () => (copied.textContent = "Copied to the clipboard."),
              () => {
                // No clipboard (an insecure origin): select the text so Ctrl+C copies it.
                getSelection()?.selectAllChildren(code);
                copied.textContent = "Selected: press Ctrl+C to copy.";
              },
            );
          },
        },
      },
      "Copy",
    );
    clear(secretBox);
    secretBox.append(h("p", {}, `The secret of "${keyName}". It is shown only now: store it safely.`), code, " ", copy, copied, h("button", { type: "button", class: "link", on: { click: () => (secretBox.hidden = true) } }, "Done"));
    secretBox.hidden = false;
    copy.focus();
  }

  async function patch(key: Key, disabled: boolean): Promise<void> {
    await api(`/keys/${key.hash}`, { method: "PATCH", json: { disabled } });
    note.textContent = `${key.name} ${disabled ? "disabled" : "enabled"}.`;
    await load();
  }

  async function remove(key: Key): Promise<void> {
    if (!confirm(`Delete the key "${key.name}"? Requests with it will be refused.`)) return;
    await api(`/keys/${key.hash}`, { method: "DELETE" });
    note.textContent = `${key.name} deleted.`;
    await load();
  }

  async function load(): Promise<void> {
    const { data } = await api<{ data: Key[] }>("/keys?include_disabled=true");
    clear(list);
    list.append(
      table(
        ["Name", "Label", "Usage", "Limit", "Resets", "Expires", "State", ""],
        data.map((key) => [
          key.name,
          h("code", {}, key.label),
          usd(key.usage),
          key.limit === null ? "none" : usd(key.limit),
          key.limit_reset ?? "never",
          when(key.expires_at),
          key.disabled ? "disabled" : "active",
          h(
            "span",
            { class: "actions" },
            h("button", { type: "button", on: { click: () => void patch(key, !key.disabled) } }, key.disabled ? `Enable ${key.name}` : `Disable ${key.name}`),
            h("button", { type: "button", class: "danger", on: { click: () => void remove(key) } }, `Delete ${key.name}`),
          ),
        ]),
        "API keys of this workspace",
      ),
    );
  }

  root.append(h("h2", {}, "Keys"), h("section", { "aria-label": "Create a key" }, form), secretBox, note, list);
  void load();
}
