/**
 * THE pipeline order (ARCHITECTURE §4), in one place. Outermost first: code before `next()` runs in this order on
 * the way in, code after it in reverse on the way out.
 */
import { accountingStage } from "./stages/accounting.ts";
import { authStage } from "./stages/auth.ts";
import { callWithFallbacksStage } from "./stages/call-with-fallbacks.ts";
import { formatOutStage } from "./stages/format-out.ts";
import { limitsStage } from "./stages/limits.ts";
import { agentLoopStage, guardrailsStage } from "./stages/placeholders.ts";
import { postPluginsStage, prePluginsStage, routePluginsStage } from "./stages/plugins.ts";
import { routingStage } from "./stages/routing.ts";
import { compose, type Stage } from "./stage.ts";

export const PIPELINE: readonly Stage[] = Object.freeze([
  formatOutStage,
  authStage,
  limitsStage,
  guardrailsStage,
  accountingStage,
  prePluginsStage,
  routingStage,
  routePluginsStage,
  postPluginsStage,
  agentLoopStage,
  callWithFallbacksStage,
]);

/** The composed pipeline, built once at module load. */
export const runPipeline = compose(PIPELINE);
