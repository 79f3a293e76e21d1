/**
 * What one request spent: the usage and cost of every model turn it made (each priced at the endpoint that served
 * it) plus the priced work plugins charged for. Turns add to it as they finish; accounting settles it once.
 */
import { roundUsd } from "../../accounting/money.ts";
import { addUsage, emptyUsage, type Cost, type Usage } from "../../model/usage.ts";
import type { StreamOutcome } from "../outcome.ts";

/** Priced work a plugin or server tool did for the request (a web search, a moderation call), billed with it. */
export interface Charge {
  /** USD. */
  amount: number;
  description: string;
  /** Who did it: `plugin "web"`, `service:web_search`. */
  source: string;
}

export class Spend {
  usage: Usage = emptyUsage();
  cost: Cost = { total: 0, input: 0, output: 0, upstream: null };
  readonly charges: Charge[] = [];
  /** Turns started, the request's own and its sub-requests' (core/pipeline/plugins/nested.ts). */
  turns = 0;
  /**
   * The request's own turns started. The first runs on the limits stage's reservation, sized for it before any
   * plugin ran; later ones and every sub-request turn extend the hold by their own worst case first (turn.ts).
   */
  ownTurns = 0;
  /**
   * The model the reservation was sized for, when it was sized for one model (not a router's choice among all): an
   * own first turn on another model (a plugin replaced it) holds its own worst case too.
   */
  reservedModel: string | undefined;
  /** Turns finished (their usage and cost are in `usage` and `cost`). */
  settledTurns = 0;
  /** How the latest finished turn ended, for the generation record. */
  finish: string | undefined;
  status = 200;
  errorType: string | undefined;
  /** True once accounting wrote the request's generation record (exactly one per request). */
  settled = false;

  /** Streamed turns a plugin's `around` hook received (any it dropped unread is abandoned when the request settles). */
  private streams: StreamOutcome[] | undefined;

  /** Remembers a streamed turn handed to a plugin. */
  handedOut(stream: StreamOutcome): void {
    (this.streams ??= []).push(stream);
  }

  /**
   * Abandons every streamed turn nobody read (a plugin dropped it for another turn's answer): its upstream stops
   * and what it sent is metered, before the request's bill is added up. A no-op for the streams that were read.
   */
  abandonUnread(): void {
    if (this.streams) for (const stream of this.streams) stream.abandon();
  }

  /** Attempts billed that the client never saw (a refusal the walk moved on from); part of `settledTurns`. */
  discarded = 0;

  /** Adds an attempt the client never sees but the upstream billed: the bill is more than the turn it gets. */
  addDiscarded(usage: Usage, cost: Cost): void {
    this.discarded++;
    this.addTurn(usage, cost);
  }

  /** Adds a finished turn. */
  addTurn(usage: Usage, cost: Cost): void {
    this.settledTurns++;
    this.usage = this.settledTurns === 1 ? usage : addUsage(this.usage, usage);
    this.cost = this.settledTurns === 1 ? cost : sumCosts(this.cost, cost);
  }

  /** Records a turn that failed without producing anything to bill. */
  failed(status: number, errorType: string): void {
    this.finish = "error";
    this.status = status;
    this.errorType = errorType;
  }

  /** USD plugins charged. */
  charged(): number {
    let sum = 0;
    for (const charge of this.charges) sum += charge.amount;
    return roundUsd(sum);
  }

  /** The request's cost so far: its finished turns, `live` (a turn still streaming), and the charges. */
  totalCost(live?: Cost): Cost {
    const charged = this.charged();
    const base = this.settledTurns === 0 ? live : live ? sumCosts(this.cost, live) : this.cost;
    if (!base) return { total: charged, input: 0, output: 0, upstream: null };
    return charged === 0 ? base : { ...base, total: roundUsd(base.total + charged) };
  }

  /**
   * `shown` (a reply's usage) with the request's token counts so far, as `totalCost` adds up its cost: the finished
   * turns', plus `live` (a turn still streaming). Its other fields (server-tool counters, raw) stay as shown.
   */
  totalUsage(shown: Usage, live?: Usage): Usage {
    const base = this.settledTurns === 0 ? live : live ? addUsage(this.usage, live) : this.usage;
    return base ? { ...shown, input: base.input, output: base.output } : shown;
  }

  /** True when what one turn reported is not the whole bill (several turns, or charges). */
  isCompound(): boolean {
    return this.settledTurns > 1 || this.turns > 1 || this.charges.length > 0 || this.discarded > 0;
  }
}

function sumCosts(a: Cost, b: Cost): Cost {
  return {
    total: roundUsd(a.total + b.total),
    input: roundUsd(a.input + b.input),
    output: roundUsd(a.output + b.output),
    upstream: a.upstream === null && b.upstream === null ? null : roundUsd((a.upstream ?? 0) + (b.upstream ?? 0)),
  };
}
