/**
 * Priced work done for a request besides its model turns (a plugin's moderation call, a server tool's search engine
 * request): held against the key's credit limit first, so it can never spend past it, then added to the request's
 * spend, which accounting settles with the turns.
 */
import { roundUsd } from "../../accounting/money.ts";
import { GatewayError } from "../../errors.ts";
import type { RequestContext } from "../context.ts";

/** Who did the work: `{plugin: "web"}` or `{tool: "service:web_search"}` (in the 402's metadata and the spend). */
export type ChargeSource = { plugin: string } | { tool: string };

export async function chargeRequest(ctx: RequestContext, who: ChargeSource, amount: number, description: string): Promise<void> {
  const source = "plugin" in who ? `plugin "${who.plugin}"` : who.tool;
  if (!Number.isFinite(amount) || amount < 0) throw new TypeError(`${source}: charge(${amount}) must be a finite, non-negative USD amount`);
  const usd = roundUsd(amount);
  if (usd > 0 && ctx.credit && !(await ctx.credit.extend(usd))) {
    throw new GatewayError("payment_required", `Insufficient credits for the priced work of ${source} (${description})`, {
      metadata: { ...who, amount: usd },
    });
  }
  ctx.spend.charges.push({ amount: usd, description, source });
}
