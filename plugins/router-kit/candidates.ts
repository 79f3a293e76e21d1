/**
 * The models a router may choose from, with what it ranks them by: a blended price (USD per token, the dearest
 * endpoint's, since routing may send the request to any of them), the price's percentile rank among the candidates
 * (the cost-tier bands), and a quality score per task type (config `quality`, else a default).
 */
import type { CanonicalRequest, ModelView, PluginContext } from "../../core/sdk/index.ts";
import { defaultQuality } from "./quality.ts";

export interface Candidate {
  readonly id: string;
  /** USD per input token (the dearest endpoint's). */
  readonly promptPrice: number;
  /** USD per output token. */
  readonly completionPrice: number;
  /** USD per token, input and output weighted 3:1 (a typical request reads three tokens for each it writes). */
  readonly price: number;
  readonly contextLength: number | undefined;
  /** Measured output tokens per second (p50, best endpoint), when this process has seen calls. */
  readonly throughput: number | undefined;
  readonly view: ModelView;
}

/**
 * The catalog models a router chooses from: those that write text, and (unless the request asks for image output)
 * that do not make images — an image model is priced and tuned for pictures, not for answering a chat.
 */
export function catalogModels(ctx: Pick<PluginContext, "catalog" | "request">): Candidate[] {
  const images = ctx.request.modalities?.includes("image") === true;
  return ctx.catalog.models().filter((view) => writesText(view) && (images || !makesImages(view))).map(candidateOf);
}

function makesImages(view: ModelView): boolean {
  return view.endpoints.some((e) => e.outputModalities?.includes("image") === true);
}

/** The catalog models named in `ids` (unknown ones dropped), in that order. */
export function namedModels(ctx: Pick<PluginContext, "catalog">, ids: readonly string[]): Candidate[] {
  const out: Candidate[] = [];
  for (const id of new Set(ids)) {
    const view = ctx.catalog.model(id);
    if (view && writesText(view)) out.push(candidateOf(view));
  }
  return out;
}

function writesText(view: ModelView): boolean {
  return view.endpoints.some((e) => e.outputModalities === undefined || e.outputModalities.includes("text"));
}

function candidateOf(view: ModelView): Candidate {
  let promptPrice = 0;
  let completionPrice = 0;
  let contextLength: number | undefined;
  let throughput: number | undefined;
  for (const endpoint of view.endpoints) {
    promptPrice = Math.max(promptPrice, endpoint.pricing.prompt);
    completionPrice = Math.max(completionPrice, endpoint.pricing.completion);
    if (endpoint.contextLength !== undefined) contextLength = Math.max(contextLength ?? 0, endpoint.contextLength);
    const p50 = endpoint.throughput?.p50;
    if (p50 !== undefined) throughput = Math.max(throughput ?? 0, p50);
  }
  return { id: view.id, promptPrice, completionPrice, price: (3 * promptPrice + completionPrice) / 4, contextLength, throughput, view };
}

/** Drops models whose context window cannot hold the prompt (a rough 4 characters per token), unless none can. */
export function fitting(candidates: Candidate[], request: CanonicalRequest): Candidate[] {
  const needed = Math.ceil(promptChars(request) / 4) + (request.maxTokens ?? 0);
  const fit = candidates.filter((c) => c.contextLength === undefined || c.contextLength >= needed);
  return fit.length > 0 ? fit : candidates;
}

function promptChars(request: CanonicalRequest): number {
  let chars = 0;
  for (const part of request.system) chars += part.text.length;
  for (const message of request.messages) {
    for (const part of message.parts) {
      if (part.type === "text" || part.type === "reasoning" || part.type === "refusal") chars += part.text.length;
      else if (part.type === "tool-call") chars += part.arguments.length;
      else if (part.type === "tool-result") chars += typeof part.content === "string" ? part.content.length : 200;
    }
  }
  return chars;
}

/**
 * Percentile rank of each candidate's price: the share of candidates strictly cheaper, 0–100 (equal prices share a
 * rank). With five candidates at five prices that is 0, 20, 40, 60 and 80: one per cost-tier band.
 */
export function pricePercentiles(candidates: readonly Candidate[], price: (c: Candidate) => number = (c) => c.price): Map<string, number> {
  const sorted = candidates.map(price).sort((a, b) => a - b);
  const out = new Map<string, number>();
  for (const candidate of candidates) {
    const cheaper = lowerBound(sorted, price(candidate));
    out.set(candidate.id, candidates.length === 0 ? 0 : (100 * cheaper) / candidates.length);
  }
  return out;
}

function lowerBound(sorted: readonly number[], value: number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * A model's quality for a task type: the config's score for that type, else its `general` score, else the
 * default (quality.ts). `ranks` are the price percentiles over the whole catalog, which the default reads.
 */
export function qualityOf(candidate: Candidate, task: string | undefined, ranks: ReadonlyMap<string, number>): number {
  const scores = candidate.view.quality;
  const given = (task !== undefined ? scores?.[task] : undefined) ?? scores?.general;
  return given ?? defaultQuality(candidate.id, task, ranks.get(candidate.id) ?? 50);
}
