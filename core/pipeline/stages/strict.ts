/**
 * strict (README "Strict mode"; core/pipeline/strict/): right after auth, so a key's default can apply and nothing
 * is reserved or called for a request that is refused. It settles whether the request is strict and refuses it at
 * once when decoding its format already lost something; what an adapter loses is checked by each attempt, between
 * building the upstream body and sending it (core/pipeline/turn/attempt.ts).
 */
import { warnUnusedTrace } from "../../observe/tracing/unused-trace.ts";
import { isStrict } from "../strict/mode.ts";
import { strictRefusal } from "../strict/refusal.ts";
import type { Stage } from "../stage.ts";

export const strictStage: Stage = {
  name: "strict",
  run(ctx, next) {
    // Only the decoder has written warnings so far: each of them is a translation of the client's request.
    warnUnusedTrace(ctx.request, ctx.deps.config.tracing !== undefined);
    ctx.strict = isStrict(ctx.headers, ctx.principal?.record?.strict, ctx.deps.config.strict);
    if (ctx.strict) {
      const refusal = strictRefusal(ctx.request.warnings);
      if (refusal) throw refusal;
    }
    return next();
  },
};
