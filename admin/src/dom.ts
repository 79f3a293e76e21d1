/** A tiny element builder: the page is plain DOM, no framework, so it bundles small and needs no build step. */
type Child = Node | string | number | null | undefined | false;
type Props = Record<string, unknown> & { on?: Record<string, (event: Event) => void> };

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Props = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props)) {
    if (key === "on") for (const [name, fn] of Object.entries(value as Record<string, (e: Event) => void>)) el.addEventListener(name, fn);
    else if (value === false || value === undefined || value === null) continue;
    else if (key in el && typeof value !== "string") (el as unknown as Record<string, unknown>)[key] = value;
    else el.setAttribute(key, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

export function clear(el: Element): void {
  el.replaceChildren();
}

/** A labelled form control: the label names it for screen readers and keyboard users. */
export function field(label: string, control: HTMLElement): HTMLElement {
  const id = control.id || `f-${Math.random().toString(36).slice(2, 9)}`;
  control.id = id;
  return h("div", { class: "field" }, h("label", { for: id }, label), control);
}

/** A status line read out by screen readers when it changes. */
export function status(): HTMLElement {
  return h("p", { class: "status", role: "status", "aria-live": "polite" });
}

export function usd(n: unknown): string {
  const value = typeof n === "number" ? n : Number(n ?? 0);
  return value < 0.01 && value > 0 ? `$${value.toPrecision(2)}` : `$${value.toFixed(2)}`;
}

export function when(iso: unknown): string {
  if (typeof iso !== "string" && typeof iso !== "number") return "—";
  const date = typeof iso === "number" ? new Date(iso * 1000) : new Date(iso);
  return Number.isNaN(date.getTime()) ? "—" : date.toLocaleString();
}

export function table(headers: string[], rows: Child[][], caption?: string): HTMLTableElement {
  return h(
    "table",
    {},
    caption ? h("caption", {}, caption) : null,
    h("thead", {}, h("tr", {}, ...headers.map((text) => h("th", { scope: "col" }, text)))),
    h("tbody", {}, ...rows.map((cells) => h("tr", {}, ...cells.map((cell) => h("td", {}, cell))))),
  );
}
