/**
 * accounting: closes the request's bill (core/accounting/bill.ts) — every model turn (each metered at the endpoint
 * that served it, see turn/meter.ts) plus the plugins' and tools' charges — into one generation record, off the hot
 * path, and commits its credit holds with the actual cost; the reply's usage shows every turn's tokens and the whole
 * cost, at the bill's price factor. Also when the request failed: what an upstream produced is billed even when a
 * later step fails. A stream's bill closes when it ends, seen through the stream outcome itself.
 */
import { closeBill, closeFailed } from "../../accounting/close-bill.ts";
import type { StreamEvent } from "../../model/events.ts";
import type { RequestContext } from "../context.ts";
import type { Outcome, StreamObserver } from "../outcome.ts";
import type { Stage } from "../stage.ts";

export const accountingStage: Stage = {
  name: "accounting",
  async run(ctx, next) {
    let outcome: Outcome;
    try {
      outcome = await next();
    } catch (error) {
      closeFailed(ctx, error);
      throw error;
    }
    if (outcome.kind === "response") {
      const response = outcome.response;
      const bill = ctx.bill;
      // One turn and no charges: the turn's own cost is the bill (the common case, nothing to add up). Otherwise the
      // reply shows every turn's tokens and cost (a plugin's sub-requests, refused attempts, an agent loop's turns).
      if (bill.compound) {
        response.cost = bill.billed();
        response.usage = bill.totalUsage(response.usage);
      } else response.cost = response.cost === undefined ? bill.billed() : bill.priced(response.cost);
      const error = response.error;
      closeBill(ctx, { finish: response.finish.raw ?? response.finish.reason, status: error?.status ?? 200, errorType: error?.type });
    } else {
      outcome.observe(new StreamSettlement(ctx));
    }
    return outcome;
  },
};

/** Shows the whole bill in the stream's usage events when there is more to it than this turn, closes it at the end. */
class StreamSettlement implements StreamObserver {
  constructor(private readonly ctx: RequestContext) {}

  /**
   * A usage event's tokens and `cost` are the live turn's; with more to the bill the event shows the whole
   * request's. One with no cost (the agent loop's closing usage, after all its turns settled) already sums the
   * tokens: only its cost is added up.
   */
  event(event: StreamEvent): StreamEvent {
    if (event.type !== "usage") return event;
    const bill = this.ctx.bill;
    if (event.cost !== undefined && !bill.compound) return bill.priceFactor === 1 ? event : { ...event, cost: bill.priced(event.cost) };
    return { ...event, usage: event.cost === undefined ? event.usage : bill.totalUsage(event.usage, event.usage), cost: bill.billed(event.cost) };
  }

  fail(): void {}

  /** Runs after the turn's own meter ended (observers end in the order they were attached). */
  end(): void {
    closeBill(this.ctx);
  }
}
