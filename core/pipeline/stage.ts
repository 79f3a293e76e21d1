/**
 * A request pipeline stage: an onion layer that resolves with the request's outcome or throws.
 * Code before `await next()` runs inward, after it outward. A stage with nothing to do on the way out ends with
 * `return next()`: its frame is then released while the request waits on the upstream, instead of staying
 * suspended for the whole call (memory per open request).
 */
import type { RequestContext } from "./context.ts";
import type { Outcome } from "./outcome.ts";

export interface Stage {
  readonly name: string;
  run(ctx: RequestContext, next: () => Promise<Outcome>): Promise<Outcome>;
}

/**
 * Composes stages into one function, outermost first. Built once at start-up, not per request. Each request stage
 * runs once (auth twice would be a bug); what repeats is the model turn, which the innermost stage calls.
 */
export function compose(stages: readonly Stage[]): (ctx: RequestContext) => Promise<Outcome> {
  const dispatch = (index: number, ctx: RequestContext): Promise<Outcome> => {
    const stage = stages[index];
    if (stage === undefined) return Promise.reject(new Error("the pipeline ended without an outcome"));
    let called = false;
    return stage.run(ctx, () => {
      if (called) return Promise.reject(new Error(`stage ${stage.name} called next() twice`));
      called = true;
      return dispatch(index + 1, ctx);
    });
  };
  return (ctx) => dispatch(0, ctx);
}
