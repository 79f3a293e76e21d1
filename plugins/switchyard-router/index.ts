/**
 * `switchyard-router` (after NVIDIA NeMo Switchyard): `nvidia/switchyard` with the request's `models`
 * (1–3; omitted: the config's `default_models`, else the catalog's cheapest and dearest text models) chooses between
 * the efficient tier (the cheapest of them) and the capable tier (the dearest). `algorithm`:
 * - `capability`: the local rule (decide.ts) decides;
 * - `stage` (default): the rule decides when it is sure, and asks the judge when it is not;
 * - `composite`: the rule and the judge together; `auto`: `stage` with a judge, else `capability`;
 * - `random`: any of the models; `passthrough`: the models in the caller's order.
 * The judge is `judge_model` (any configured model; config or request). Without one, `stage`/`composite` fall back
 * to the rule (`degraded_reason`). With a `session_id` the first decision is kept for the session (`session_pin`).
 */
import { createHash } from "node:crypto";
import { Type } from "@sinclair/typebox";
import { definePlugin, type PluginContext } from "../../core/sdk/index.ts";
import { catalogModels, namedModels, type Candidate } from "../router-kit/candidates.ts";
import { applyChoice, asksFor, noModels } from "../router-kit/choose.ts";
import { classify } from "../router-kit/classify.ts";
import { literals, ROUTER_MODELS, ROUTER_PRIORITY } from "../router-kit/options.ts";
import { combine, ruleVerdict, tierFor, type Tier, type Verdict } from "./decide.ts";
import { askJudge, DEFAULT_JUDGE_TIMEOUT_MS } from "./judge.ts";

export const SWITCHYARD_MODEL = "nvidia/switchyard";
const ID = "switchyard-router";
const ALGORITHMS = ["capability", "stage", "auto", "composite", "random", "passthrough"] as const;
type Algorithm = (typeof ALGORITHMS)[number];
const MAX_MODELS = 3;
const PIN_TTL_MS = 3_600_000;

export default definePlugin({
  id: ID,
  description: "Chooses between an efficient and a capable model of the request's models (model nvidia/switchyard).",
  priority: ROUTER_PRIORITY,
  models: [SWITCHYARD_MODEL],
  optionsSchema: Type.Object(
    {
      algorithm: Type.Optional(literals(ALGORITHMS)),
      judge_model: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
      /** Operator settings (config `plugins.switchyard-router`). */
      judge_timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 30_000 })),
      default_models: Type.Optional(Type.Array(Type.String({ minLength: 1 }), { minItems: 1, maxItems: MAX_MODELS })),
    },
    { additionalProperties: false },
  ),
  hooks: {
    async pre(ctx) {
      if (!asksFor(ctx, ID, [SWITCHYARD_MODEL], true)) return;
      const started = performance.now();
      const models = modelsOf(ctx);
      const byPrice = [...models].sort((a, b) => a.price - b.price || a.id.localeCompare(b.id));
      const efficient = byPrice[0]!;
      const capable = byPrice[byPrice.length - 1]!;
      const algorithm = (ctx.options.algorithm as Algorithm | undefined) ?? "stage";
      const data: Record<string, unknown> = { algorithm, models: models.map((m) => m.id) };
      let order: string[];
      const pinned = await sessionPin(ctx, models);
      if (pinned) {
        data.strategy = "session_pin";
        order = [pinned, ...models.map((m) => m.id).filter((id) => id !== pinned)];
      } else if (algorithm === "passthrough") {
        data.strategy = "caller_order";
        order = models.map((m) => m.id);
      } else if (algorithm === "random") {
        data.strategy = "random";
        const pick = models[Math.floor(Math.random() * models.length)]!.id;
        order = [pick, ...models.map((m) => m.id).filter((id) => id !== pick)];
      } else {
        const tier = await decideTier(ctx, algorithm, data);
        data.tier = tier;
        const first = tier === "efficient" ? efficient : capable;
        // The other tier next, then the middle model: a failure of the chosen tier falls back to the other one.
        const second = tier === "efficient" ? capable : efficient;
        order = [...new Set([first.id, second.id, ...byPrice.map((m) => m.id)])];
      }
      data.route_ms = Math.round((performance.now() - started) * 1000) / 1000;
      const reason = data.tier ? `${String(data.tier)} tier (${String(data.strategy)})` : String(data.strategy);
      const chosen = await applyChoice(ctx, ID, { ranked: order, fallbacks: MAX_MODELS - 1, strategy: "switchyard", reason, data });
      await rememberSession(ctx, models, chosen);
    },
  },
});

/** The request's `models` (1–3 catalog models), else the defaults. */
function modelsOf(ctx: PluginContext): Candidate[] {
  const asked = ctx.request.models;
  const fail = (message: string) => ctx.helpers.error("invalid_request", message, { metadata: { param: "models" } });
  if (asked.length > MAX_MODELS) throw fail(`switchyard-router takes 1 to ${MAX_MODELS} models, got ${asked.length}`);
  const nested = asked.find((m) => (ROUTER_MODELS as readonly string[]).includes(m));
  if (nested) throw fail(`switchyard-router cannot be combined with another router model (${nested})`);
  if (asked.length > 0) {
    const found = namedModels(ctx, asked);
    const unknown = asked.filter((id) => !found.some((m) => m.id === id));
    if (unknown.length > 0) throw fail(`models: ${unknown.map((m) => `"${m}"`).join(", ")} not available on this gateway`);
    return found;
  }
  const defaults = Array.isArray(ctx.options.default_models) ? namedModels(ctx, ctx.options.default_models as string[]) : [];
  if (defaults.length > 0) return defaults;
  const catalog = catalogModels(ctx).sort((a, b) => a.price - b.price || a.id.localeCompare(b.id));
  if (catalog.length === 0) throw noModels(ctx, ID, "switchyard-router's default pair");
  return [...new Set([catalog[0]!, catalog[catalog.length - 1]!])];
}

/** The tier by `algorithm`, recording the verdicts and any judge failure in `data`. */
async function decideTier(ctx: PluginContext, algorithm: Algorithm, data: Record<string, unknown>): Promise<Tier> {
  const rule = ruleVerdict(classify(ctx.request));
  const judgeModel = typeof ctx.options.judge_model === "string" ? ctx.options.judge_model : undefined;
  const useJudge = algorithm === "composite" || ((algorithm === "stage" || algorithm === "auto") && rule.boundary === "uncertain");
  data.strategy = algorithm === "auto" ? (judgeModel ? "stage" : "capability") : algorithm;
  data.rule = { capability_boundary: rule.boundary, p_solve: rule.pSolve };
  if (algorithm === "capability" || !useJudge) return tierFor(rule);
  if (!judgeModel) {
    if (algorithm !== "auto") data.degraded_reason = "no_judge_model";
    return tierFor(rule);
  }
  const timeout = typeof ctx.options.judge_timeout_ms === "number" ? ctx.options.judge_timeout_ms : DEFAULT_JUDGE_TIMEOUT_MS;
  const started = performance.now();
  const judged = await askJudge(ctx, judgeModel, timeout);
  data.judge_model = judgeModel;
  data.judge_ms = Math.round(performance.now() - started);
  if ("failure" in judged) {
    data.judge_failure = judged.failure;
    return "capable";
  }
  const verdict: Verdict = algorithm === "composite" ? combine(rule, judged.verdict) : judged.verdict;
  data.judge = { capability_boundary: judged.verdict.boundary, p_solve: judged.verdict.pSolve, ...(judged.crux ? { crux: judged.crux } : {}) };
  return tierFor(verdict);
}

function pinKey(ctx: PluginContext, models: readonly Candidate[]): string | undefined {
  const session = ctx.request.sessionId;
  if (session === undefined) return undefined;
  return `switchyard:pin:${createHash("sha256").update(`${session}\n${models.map((m) => m.id).join("\n")}`).digest("hex")}`;
}

/** The model this session's first request chose (while it is still one of the models). */
async function sessionPin(ctx: PluginContext, models: readonly Candidate[]): Promise<string | undefined> {
  const key = pinKey(ctx, models);
  if (!key) return undefined;
  const pinned = await ctx.helpers.kv.get(key).catch(() => null);
  return pinned !== null && models.some((m) => m.id === pinned) ? pinned : undefined;
}

async function rememberSession(ctx: PluginContext, models: readonly Candidate[], chosen: string): Promise<void> {
  const key = pinKey(ctx, models);
  if (key) await ctx.helpers.kv.set(key, chosen, PIN_TTL_MS).catch(() => undefined);
}
