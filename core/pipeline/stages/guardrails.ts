/** guardrails: input and output policies (403 with pipeline details when blocking); arrives with its issue. */
import type { Stage } from "../stage.ts";

export const guardrailsStage: Stage = { name: "guardrails", run: (_ctx, next) => next() };
