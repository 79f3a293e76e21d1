/**
 * The deprecated `route` (spec "Responses request" `route`) is the provider sort partition:
 * `fallback` → `model`, `sort` → `none`. Every format folds it into `provider.sort.partition` at decode, so routing
 * reads one place and the field can never reach an upstream. An explicit `provider.sort.partition` wins.
 */
import type { ProviderPreferences } from "../../model/request.ts";

export function foldRoute(provider: ProviderPreferences | null | undefined, route: string | null | undefined): ProviderPreferences | undefined {
  const copy = provider ? { ...provider } : undefined;
  if (route !== "fallback" && route !== "sort") return copy;
  const partition = route === "fallback" ? "model" : "none";
  const out: ProviderPreferences = copy ?? {};
  const sort = out.sort;
  if (typeof sort === "string") out.sort = { by: sort, partition };
  else if (typeof sort === "object" && sort !== null) out.sort = { partition, ...(sort as Record<string, unknown>) };
  else out.sort = { partition };
  return out;
}
