/**
 * The admin page: sign in with a management key (kept in this tab's sessionStorage only), then one view per
 * fragment (`#keys`, `#usage`, `#generations`, `#batches`, `#presets`, `#guardrails`, `#containers`); any other
 * fragment says there is no such view. Everything it shows comes from the public management API.
 */
import "./style.css";
import { api, ApiError, chooseWorkspace, forgetKey, savedKey, saveKey } from "./api.ts";
import { clear, field, h, status } from "./dom.ts";
import { batchesView } from "./views/batches.ts";
import { containersView } from "./views/containers.ts";
import { generationsView } from "./views/generations.ts";
import { guardrailsView } from "./views/guardrails.ts";
import { keysView } from "./views/keys.ts";
import { presetsView } from "./views/presets.ts";
import { usageView } from "./views/usage.ts";
import { workspaceSwitcher } from "./workspace-switcher.ts";

type View = (root: HTMLElement) => void | (() => void);

const VIEWS: Array<{ id: string; title: string; view: View }> = [
  { id: "keys", title: "Keys", view: keysView },
  { id: "usage", title: "Usage", view: usageView },
  { id: "generations", title: "Generations", view: generationsView },
  { id: "batches", title: "Batches", view: batchesView },
  { id: "presets", title: "Presets", view: presetsView },
  { id: "guardrails", title: "Guardrails", view: guardrailsView },
  { id: "containers", title: "Containers", view: containersView },
];

const app = document.getElementById("app")!;
let leave: (() => void) | undefined;

function signIn(message = ""): void {
  clear(app);
  const key = h("input", { type: "password", required: true, autocomplete: "off", spellcheck: false });
  const note = status();
  note.textContent = message;
  const form = h(
    "form",
    {
      class: "signin",
      on: {
        submit: (event) => {
          event.preventDefault();
          void check(key.value.trim(), note);
        },
      },
    },
    h("h1", {}, "Gateway admin"),
    field("Management key", key),
    h("button", { type: "submit" }, "Sign in"),
    note,
    h("p", { class: "hint" }, "The key stays in this browser tab only and is sent as a bearer header."),
  );
  app.append(h("main", {}, form));
  key.focus();
}

async function check(key: string, note: HTMLElement): Promise<void> {
  try {
    // A management key may list keys; an inference key (403) or an unknown one (401) may not.
    chooseWorkspace(null);
    await api("/keys", { key });
    saveKey(key);
    shell();
  } catch (error) {
    note.textContent = error instanceof ApiError && (error.status === 401 || error.status === 403) ? "That key was refused: a management key is needed." : `Could not sign in: ${(error as Error).message}`;
  }
}

function shell(): void {
  clear(app);
  const main = h("main", { id: "view", tabIndex: -1 });
  const nav = h(
    "nav",
    { "aria-label": "Sections" },
    h("ul", {}, ...VIEWS.map((v) => h("li", {}, h("a", { href: `#${v.id}`, "data-view": v.id }, v.title)))),
    h("button", { type: "button", class: "link", on: { click: () => (forgetKey(), signIn("Signed out.")) } }, "Sign out"),
  );
  const switcher = h("div", { class: "workspace-switcher" });
  app.append(h("header", {}, h("span", { class: "brand" }, "Gateway admin"), switcher, nav), main);
  route();
  void workspaceSwitcher(switcher, route);
}

function route(): void {
  const main = document.getElementById("view");
  if (!main) return;
  const id = fragment() || "keys";
  const entry = VIEWS.find((v) => v.id === id);
  leave?.();
  leave = undefined;
  clear(main);
  for (const link of document.querySelectorAll<HTMLAnchorElement>("nav a")) {
    if (link.dataset.view === entry?.id) link.setAttribute("aria-current", "page");
    else link.removeAttribute("aria-current");
  }
  document.title = `${entry?.title ?? "No such view"} · Gateway admin`;
  if (!entry) return noSuchView(main, id);
  const stop = entry.view(main);
  if (typeof stop === "function") leave = stop;
}

/** The URL's fragment, decoded (a malformed escape is shown as it is). */
function fragment(): string {
  const raw = location.hash.slice(1);
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

/** A fragment no view has (a typo, an old bookmark): said plainly, never another view shown in its place. */
function noSuchView(main: HTMLElement, id: string): void {
  main.append(
    h("h2", {}, "No such view"),
    h("p", {}, `There is no view named "#${id}". The views are:`),
    h("ul", {}, ...VIEWS.map((v) => h("li", {}, h("a", { href: `#${v.id}` }, v.title)))),
  );
}

// A key that stops working (revoked, expired) sends the user back to sign in.
window.addEventListener("unhandledrejection", (event) => {
  if (event.reason instanceof ApiError && (event.reason.status === 401 || event.reason.status === 403)) {
    forgetKey();
    signIn("Your key was refused; sign in again.");
  }
});
window.addEventListener("hashchange", route);

if (savedKey()) shell();
else signIn();
