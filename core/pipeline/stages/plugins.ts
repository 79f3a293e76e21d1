/**
 * plugins: resolves the request's active plugins (an unknown id is a 400), runs their `pre` hooks in plugin order
 * on the way in and their `post` / `stream` hooks on the final outcome on the way out. Their `around` and `route`
 * hooks wrap each model turn (core/pipeline/turn/).
 */
import { checkedOutcome, mapStream, responseOutcome } from "../outcome.ts";
import { resolvePlugins } from "../plugins/active.ts";
import type { Stage } from "../stage.ts";

export const pluginsStage: Stage = {
  name: "plugins",
  async run(ctx, next) {
    const active = resolvePlugins(ctx);
    ctx.plugins = active;
    if (active.length === 0) return next();
    for (const { plugin, contextFor } of active) {
      if (!plugin.hooks.pre) continue;
      const context = contextFor(ctx.request);
      await plugin.hooks.pre(context);
      ctx.request = context.request; // a hook may assign a new request object rather than mutate it
    }
    let outcome = await next();
    for (const { plugin, contextFor } of active) {
      const { post, stream } = plugin.hooks;
      if (outcome.kind === "response" && post) {
        outcome = checkedOutcome(responseOutcome(await post(contextFor(ctx.request), outcome.response)), `plugin "${plugin.id}" post()`);
      } else if (outcome.kind === "stream" && stream) {
        // A hook that hands back the stream it got (nothing to do for this request) adds no layer to every event.
        const events = stream(contextFor(ctx.request), outcome.events);
        if (events !== outcome.events) outcome = mapStream(outcome, () => events);
      }
    }
    return outcome;
  },
};
