/** Stages whose behaviour arrives with later issues; they sit in the order now so the request flows through them. */
import type { Stage } from "../stage.ts";

const passThrough = (name: string): Stage => ({ name, run: (_ctx, next) => next() });

/** Input/output guardrails (403 with pipeline details when blocking). */
export const guardrailsStage = passThrough("guardrails");
/** The server-tool agent loop. */
export const agentLoopStage = passThrough("agent-loop");
