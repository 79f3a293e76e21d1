/**
 * Fusion presets (`preset`: general-high, general-budget, general-fast): model lists from the config
 * (`plugins.fusion.presets.<name>`), else picked from the catalog: the three dearest text models (high), the three
 * cheapest (budget), the three with the best measured throughput, cheapest first among unmeasured ones (fast).
 */
import type { PluginContext } from "../../core/sdk/index.ts";
import { catalogModels, type Candidate } from "../router-kit/candidates.ts";

export const PRESETS = ["general-high", "general-budget", "general-fast"] as const;
export type Preset = (typeof PRESETS)[number];
const DEFAULT_SIZE = 3;

export function presetModels(ctx: PluginContext, preset: Preset): string[] {
  const configured = (ctx.options.presets as Partial<Record<Preset, string[]>> | undefined)?.[preset];
  if (configured && configured.length > 0) return [...configured];
  const models = catalogModels(ctx);
  const byPrice = (a: Candidate, b: Candidate) => a.price - b.price || a.id.localeCompare(b.id);
  let sorted: Candidate[];
  if (preset === "general-high") sorted = [...models].sort((a, b) => byPrice(b, a));
  else if (preset === "general-budget") sorted = [...models].sort(byPrice);
  else sorted = [...models].sort((a, b) => (b.throughput ?? -1) - (a.throughput ?? -1) || byPrice(a, b));
  return sorted.slice(0, DEFAULT_SIZE).map((c) => c.id);
}
