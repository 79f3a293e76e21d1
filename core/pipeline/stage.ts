/**
 * A pipeline stage (ARCHITECTURE §4): an onion layer; code before `await next()` runs inward, after it outward.
 * A stage with nothing to do on the way out ends with `return next()` instead: its frame is then released while
 * the request waits on the upstream, instead of staying suspended for the whole call (memory per open request).
 */
import type { RequestContext } from "./context.ts";

export interface Stage {
  readonly name: string;
  run(ctx: RequestContext, next: () => Promise<void>): Promise<void>;
}

/** Composes stages into one function, outermost first. Built once at start-up, not per request. */
export function compose(stages: readonly Stage[]): (ctx: RequestContext) => Promise<void> {
  const dispatch = (index: number, ctx: RequestContext): Promise<void> => {
    const stage = stages[index];
    if (stage === undefined) return Promise.resolve();
    let called = false;
    return stage.run(ctx, () => {
      if (called) return Promise.reject(new Error(`stage ${stage.name} called next() twice`));
      called = true;
      return dispatch(index + 1, ctx);
    });
  };
  return (ctx) => dispatch(0, ctx);
}
