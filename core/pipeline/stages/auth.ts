/** auth: makes sure a principal is present and allowed to run inference. */
import { requireInference } from "../../auth/authenticate.ts";
import { errors } from "../../errors.ts";
import type { Stage } from "../stage.ts";

export const authStage: Stage = {
  name: "auth",
  async run(ctx, next) {
    // The HTTP edge authenticates before body validation; other callers (batch worker) pass the principal in.
    if (!ctx.principal) throw errors.unauthenticated();
    requireInference(ctx.principal);
    ctx.log.key = ctx.principal.keyHash.slice(0, 8);
    return next();
  },
};
