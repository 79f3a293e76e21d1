/**
 * The public management API, as the page calls it: the management key lives in sessionStorage only (gone when the
 * tab closes), is sent as a bearer header and never appears in a URL.
 */
const STORE = "gateway-admin-key";
/** The workspace the operator chose in the switcher (main.ts), for this tab only; absent = the key's own. */
const WORKSPACE = "gateway-admin-workspace";
const BASE = "/api/v1";

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function savedKey(): string | null {
  return sessionStorage.getItem(STORE);
}

export function saveKey(key: string): void {
  sessionStorage.setItem(STORE, key);
}

export function forgetKey(): void {
  sessionStorage.removeItem(STORE);
  sessionStorage.removeItem(WORKSPACE);
}

export function chosenWorkspace(): string | null {
  return sessionStorage.getItem(WORKSPACE);
}

/** Makes every later management call act in `id` (null: in the signed-in key's own workspace). */
export function chooseWorkspace(id: string | null): void {
  if (id === null) sessionStorage.removeItem(WORKSPACE);
  else sessionStorage.setItem(WORKSPACE, id);
}

/**
 * The path naming the chosen workspace: the operator acts in another workspace by `?workspace_id=` on any management
 * route (README "Workspaces"), reads and writes alike, so a key edited in that workspace's list is found there.
 * `/models` is not a management route, and `/workspaces` lists every workspace whichever is chosen.
 */
function scoped(path: string): string {
  const workspace = chosenWorkspace();
  if (!workspace || path.startsWith("/models") || path.startsWith("/workspaces") || /[?&]workspace_id=/.test(path)) return path;
  return `${path}${path.includes("?") ? "&" : "?"}workspace_id=${encodeURIComponent(workspace)}`;
}

export async function api<T = Record<string, unknown>>(path: string, init: { method?: string; json?: unknown; key?: string } = {}): Promise<T> {
  const key = init.key ?? savedKey();
  const headers: Record<string, string> = {};
  if (key) headers.authorization = `Bearer ${key}`;
  if (init.json !== undefined) headers["content-type"] = "application/json";
  const response = await fetch(BASE + scoped(path), { method: init.method ?? "GET", headers, ...(init.json !== undefined ? { body: JSON.stringify(init.json) } : {}) });
  const text = await response.text();
  const body = text ? (JSON.parse(text) as Record<string, unknown>) : {};
  if (!response.ok) {
    const error = body.error as { message?: string } | undefined;
    throw new ApiError(response.status, error?.message ?? `HTTP ${response.status}`);
  }
  return body as T;
}

export async function apiText(path: string): Promise<string> {
  const key = savedKey();
  const response = await fetch(BASE + scoped(path), { headers: key ? { authorization: `Bearer ${key}` } : {} });
  if (!response.ok) throw new ApiError(response.status, `HTTP ${response.status}`);
  return response.text();
}

/**
 * Every item of a list the API pages with `offset` (`size` items a page, as the path's `limit` asks or the route
 * fixes), up to `cap` items: enough for a workspace's keys or guardrails, never an unbounded loop.
 */
export async function allPages<T>(path: string, size = 100, cap = 10_000): Promise<T[]> {
  const items: T[] = [];
  const join = path.includes("?") ? "&" : "?";
  for (let offset = 0; offset < cap; offset += size) {
    const { data } = await api<{ data: T[] }>(`${path}${join}offset=${offset}`);
    items.push(...data);
    if (data.length < size) break;
  }
  return items;
}
