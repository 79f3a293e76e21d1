/**
 * The bill of one request: the one place its money lives (README "Architecture"). It holds the credit holds (the
 * key's reservation, each guardrail budget's), which turns that reservation covers, every turn's usage and cost
 * (each priced at the endpoint that served it), the priced work plugins and tools charged, the attempts billed that
 * the client never saw, the ending, and a price factor (a batch item's discount). Its methods are the only way to
 * touch any of it:
 *
 * - the limits stage opens it with the key's reservation; the guardrails stage adds each budget's hold (`open`);
 * - the model turn asks it before calling anything (`turnStarts`: a turn no reservation covers holds its own worst
 *   case first), the meter adds what the turn cost (`turnEnded`, `turnFailed`), a refusal moved on from is paid for
 *   before the next attempt (`payForDiscarded`);
 * - plugins and tools charge (`charge`, `refund`) and reserve a later turn ahead (`reserveTurn`) through their
 *   contexts;
 * - the accounting stage closes it once (`close`): the generation record is written from it, then every hold is
 *   committed with the actual cost (the cost is added to the window before the reservation is released).
 *
 * Every hold is taken atomically against its limit before the upstream call it covers, so concurrent requests, on one
 * process or several, never spend past a limit.
 */
import { GatewayError } from "../errors.ts";
import type { CreditHold } from "../limits/credits.ts";
import { creditsUnavailable } from "../limits/failures.ts";
import type { ReservationSize } from "../limits/reservation.ts";
import type { CanonicalRequest } from "../model/request.ts";
import { addUsage, emptyUsage, type Cost, type Usage } from "../model/usage.ts";
import { roundUsd } from "./money.ts";

/** Priced work a plugin or server tool did for the request (a web search, a moderation call), billed with it. */
export interface Charge {
  /** USD. */
  readonly amount: number;
  readonly description: string;
  /** Who did it: `plugin "web"`, `service:web_search`. */
  readonly source: string;
}

/**
 * Who did the work: `{plugin: "web"}`, `{tool: "service:web_search"}`, or the response cache's hit priced at
 * `cache.read_price_factor` (in the 402's metadata and the charge).
 */
export type ChargeSource = { plugin: string } | { tool: string } | { cache: "response" };

/** How the request ended (its latest turn, until the bill closes), for the generation record, metrics and traces. */
export interface Ending {
  finish: string | undefined;
  status: number;
  errorType: string | undefined;
}

/** What the bill gives the record writer when it closes. */
export interface Closing {
  readonly usage: Usage;
  /** USD, at the price factor: what the key is charged. */
  readonly cost: number;
  /** USD BYOK credentials paid (list price), not in `cost`. */
  readonly byokCost: number;
  readonly ending: Ending;
}

/** What a bill needs, beside its holds, to hold more (core/limits/turn-size.ts makes it). */
export interface BillTerms {
  /** One turn of `request` at its worst; caps an unbounded output. Undefined when no model of it has prices. */
  worstCase(request: CanonicalRequest): ReservationSize | undefined;
  /** The key's limit and reset, named in the 402 of a turn that does not fit. */
  readonly limit: number | null;
  readonly limitReset: string | null;
  /** The model the first hold was sized for; undefined: any model (a router picks it after the reservation). */
  readonly sizedFor: string | undefined;
  /** Logs a kv failure (the hold then fails closed). */
  logError(err: unknown, message: string): void;
}

/** A turn's stream handed to a plugin, which may drop it unread. */
interface HandedOut {
  abandon(): void;
}

export class Bill {
  private usageSoFar: Usage = emptyUsage();
  private turnsCost: Cost = { total: 0, input: 0, output: 0, upstream: null };
  private readonly chargeList: Charge[] = [];
  private turnCount = 0;
  private byokSum = 0;
  private finished = 0;
  private discardedCount = 0;
  private finish: string | undefined;
  private status = 200;
  private errorType: string | undefined;
  private closed = false;
  /** Absent until a stage opens the bill: a request on a key without a limit or budget holds nothing. */
  private holds: CreditHold[] | undefined;
  private terms: BillTerms | undefined;
  private onCommit: Array<(cost: number) => void> | undefined;
  /**
   * The models reservations were made for that no turn of the request's own has used yet (undefined: any model):
   * the first one is the limits stage's, others come from `reserveTurn`. Each covers one turn.
   */
  private slots: Array<string | undefined> | undefined;
  private streams: HandedOut[] | undefined;

  /** `priceFactor`: what the request costs relative to list price (a batch item's discount: 0.5). */
  constructor(readonly priceFactor = 1) {}

  // ——— opening: the limits stage (the key's reservation) and the guardrails stage (each budget's) ———

  /**
   * Puts holds on the bill, each already reserved for the request's own first turn. The first call sets the terms;
   * a later one (a guardrail budget beside the key's limit) adds its holds to the same turn, and `onCommit` hears the
   * cost when the bill closes, after the record is written and before the holds are committed.
   */
  open(terms: BillTerms, holds: readonly CreditHold[], onCommit?: (cost: number) => void): void {
    if (!this.terms) {
      this.terms = terms;
      this.slots = [terms.sizedFor];
    }
    (this.holds ??= []).push(...holds);
    if (onCommit) (this.onCommit ??= []).push(onCommit);
  }

  /** USD held now (undefined: no hold). */
  get held(): number | undefined {
    return this.holds?.[0]?.amount;
  }

  // ——— turns ———

  /**
   * Counts a turn about to call an upstream. A turn of the request's own on a model a reservation was made for uses
   * it; any other (a plugin's sub-request, a later turn) holds its own worst case first: the promise then rejects with
   * a 402 when it does not fit, a 503 when the kv cannot be reached. Undefined when there is nothing to wait for.
   */
  turnStarts(request: CanonicalRequest, subRequest: boolean): Promise<void> | undefined {
    this.turnCount++;
    const slots = this.slots;
    if (!slots) return undefined;
    if (!subRequest) {
      const index = slots.findIndex((model) => model === undefined || model === request.model);
      if (index >= 0) {
        slots.splice(index, 1);
        return undefined;
      }
    }
    return this.holdTurn(request);
  }

  /**
   * Holds the worst case of a turn of the request's own on `request.model` now, before anything else the caller
   * runs spends (a plugin that moves the answer to another model, before its sub-requests): that turn then runs on
   * this hold and cannot be refused for credit later. Rejects as `turnStarts` does.
   */
  async reserveTurn(request: CanonicalRequest): Promise<void> {
    if (!this.slots) return;
    await this.holdTurn(request, "Insufficient credits for the model turn this request's plugin reserves");
    this.slots.push(request.model);
  }

  /** Extends every hold by one turn of `request` at its worst (its output capped when nothing bounds it). */
  async holdTurn(request: CanonicalRequest, refusal = "Insufficient credits for another model turn of this request"): Promise<void> {
    const terms = this.terms;
    if (!terms) return;
    const size = terms.worstCase(request);
    if (!size) return;
    let granted: boolean;
    try {
      granted = await this.extend(size.amount);
    } catch (err) {
      terms.logError(err, "limits: credit hold extension failed: the kv is unreachable (failing closed)");
      throw creditsUnavailable();
    }
    if (!granted) {
      throw new GatewayError("payment_required", refusal, { metadata: { limit: terms.limit, limit_reset: terms.limitReset, requested_tokens: size.outputTokens } });
    }
  }

  /** Adds a finished turn: its usage and cost, and how it ended. */
  turnEnded(usage: Usage, cost: Cost, finish: string, status: number, errorType: string | undefined): void {
    this.add(usage, cost);
    this.finish = finish;
    this.status = status;
    this.errorType = errorType;
  }

  /** Records a turn that failed without producing anything to bill. */
  turnFailed(status: number, errorType: string): void {
    this.finish = "error";
    this.status = status;
    this.errorType = errorType;
  }

  /**
   * Pays for an attempt the client never sees but the upstream billed (a refusal the walk moves on from): every hold
   * grows by its cost first, so the holds still cover the next attempt. False when they cannot grow (nothing is
   * added); rejects when the kv cannot be reached.
   */
  async payForDiscarded(usage: Usage, cost: Cost): Promise<boolean> {
    if (cost.total > 0 && this.holds && !(await this.extend(cost.total))) return false;
    this.discardedCount++;
    this.add(usage, cost);
    return true;
  }

  /** Remembers a turn's stream handed to a plugin: one it drops unread is abandoned (and metered) at closing. */
  handedOut(stream: HandedOut): void {
    (this.streams ??= []).push(stream);
  }

  // ——— charges ———

  /**
   * Bills priced work done for the request besides its turns: held against every limit first (a 402 when it does
   * not fit, nothing billed), then added. Resolves with the charge, for `refund`.
   */
  async charge(who: ChargeSource, amount: number, description: string): Promise<Charge> {
    const source = "plugin" in who ? `plugin "${who.plugin}"` : "tool" in who ? who.tool : "response cache";
    if (!Number.isFinite(amount) || amount < 0) throw new TypeError(`${source}: charge(${amount}) must be a finite, non-negative USD amount`);
    const usd = roundUsd(amount);
    if (usd > 0 && this.holds && !(await this.extend(usd))) {
      throw new GatewayError("payment_required", `Insufficient credits for the priced work of ${source} (${description})`, { metadata: { ...who, amount: usd } });
    }
    const charge: Charge = { amount: usd, description, source };
    this.chargeList.push(charge);
    return charge;
  }

  /**
   * Takes back a charge whose work failed (a failed image costs nothing). The holds stay extended until the bill
   * closes, which only ever holds more, never spends more.
   */
  refund(charge: Charge): void {
    const index = this.chargeList.lastIndexOf(charge);
    if (index >= 0) this.chargeList.splice(index, 1);
  }

  // ——— reading ———

  /** The token counts of every finished turn. */
  get usage(): Usage {
    return this.usageSoFar;
  }

  /** What the finished turns cost, at list price (charges apart). */
  get turnCost(): Cost {
    return this.turnsCost;
  }

  get charges(): readonly Charge[] {
    return this.chargeList;
  }

  /** Turns started, the request's own and its sub-requests'. */
  get turns(): number {
    return this.turnCount;
  }

  /** Turns finished (their usage and cost are in `usage` and `turnCost`), the discarded ones included. */
  get finishedTurns(): number {
    return this.finished;
  }

  /** Attempts billed that the client never saw. */
  get discarded(): number {
    return this.discardedCount;
  }

  /** How the latest turn ended; once closed, how the request did (or what the edge answered: `answeredWith`). */
  get ending(): Ending {
    return { finish: this.finish, status: this.status, errorType: this.errorType };
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** True when what one turn reported is not the whole bill (several turns, charges, attempts discarded). */
  get compound(): boolean {
    return this.finished > 1 || this.turnCount > 1 || this.chargeList.length > 0 || this.discardedCount > 0;
  }

  /** USD the request's own provider keys paid at list price (BYOK; not billed, counted in `byok_usage`). */
  get byokCost(): number {
    return roundUsd(this.byokSum);
  }

  /** USD charged. */
  charged(): number {
    let sum = 0;
    for (const charge of this.chargeList) sum += charge.amount;
    return roundUsd(sum);
  }

  /** The request's cost so far at list price: its finished turns, `live` (a turn still streaming), and the charges. */
  total(live?: Cost): Cost {
    const charged = this.charged();
    const base = this.finished === 0 ? live : live ? sumCosts(this.turnsCost, live) : this.turnsCost;
    if (!base) return { total: charged, input: 0, output: 0, upstream: null };
    return charged === 0 ? base : { ...base, total: roundUsd(base.total + charged) };
  }

  /** `total(live)` at the price factor: what the client is shown and the key is charged. */
  billed(live?: Cost): Cost {
    return this.priced(this.total(live));
  }

  /** `cost` at the price factor; `upstream` is what the provider itself charged, so it stays as it is. */
  priced(cost: Cost): Cost {
    const factor = this.priceFactor;
    if (factor === 1) return cost;
    return { total: roundUsd(cost.total * factor), input: roundUsd(cost.input * factor), output: roundUsd(cost.output * factor), upstream: cost.upstream };
  }

  /**
   * `shown` (a reply's usage) with the request's token counts so far, as `total` adds up its cost: the finished
   * turns', plus `live` (a turn still streaming). Its other fields (server-tool counters, raw) stay as shown.
   */
  totalUsage(shown: Usage, live?: Usage): Usage {
    const base = this.finished === 0 ? live : live ? addUsage(this.usageSoFar, live) : this.usageSoFar;
    return base ? { ...shown, input: base.input, output: base.output } : shown;
  }

  // ——— closing: the accounting stage ———

  /**
   * Closes the bill, once (later calls do nothing and return undefined). `ending` is the answer's (a response's, a
   * failure's); without one, the latest turn's (a stream that ended), read before any stream a plugin dropped unread
   * is abandoned — which meters what it sent, before the bill is added up. `record` writes the generation record from
   * what the bill says; then every hold is committed with the cost (resolves when they are).
   */
  close(ending: Ending | undefined, record: (closing: Closing) => void): Promise<void> | undefined {
    if (this.closed) return undefined;
    this.closed = true;
    const final = ending ?? { finish: this.finish ?? "aborted", status: this.status, errorType: this.errorType };
    if (this.streams) for (const stream of this.streams) stream.abandon();
    this.finish = final.finish;
    this.status = final.status;
    this.errorType = final.errorType;
    const cost = this.billed().total;
    try {
      record({ usage: this.usageSoFar, cost, byokCost: this.byokCost, ending: final });
    } catch (error) {
      // The spending is counted all the same: a limit must hold even when the record could not be written.
      void this.commit(cost)?.catch(() => undefined);
      throw error;
    }
    // After the record: a credit window re-seeded from the store then includes this cost.
    return this.commit(cost);
  }

  /**
   * Releases every hold without spending: the safety net of the stage that opened the bill, for a reply the
   * accounting stage did not close. A no-op once closed (the holds are committed).
   */
  letGo(): Promise<void> | undefined {
    const holds = this.holds;
    if (!holds || this.closed) return undefined;
    return Promise.all(holds.map((hold) => hold.release())).then(() => undefined);
  }

  /**
   * The answer the client got when it is an error given after the bill closed or without it (the edge's and the batch
   * worker's last word, a guardrail's block of the answer): the ending metrics and traces read. The record is not
   * changed by this.
   */
  answeredWith(status: number, errorType: string): void {
    this.finish = "error";
    this.status = status;
    this.errorType = errorType;
  }

  /** Tells `onCommit` the cost, then commits every hold (each adds the cost to its window, then releases). */
  private commit(cost: number): Promise<void> | undefined {
    if (this.onCommit) for (const heard of this.onCommit) heard(cost);
    const holds = this.holds;
    if (!holds) return undefined;
    return holds.length === 1 ? holds[0]!.commit(cost) : Promise.all(holds.map((hold) => hold.commit(cost))).then(() => undefined);
  }

  private add(usage: Usage, cost: Cost): void {
    if (cost.byok) this.byokSum += cost.byok;
    this.finished++;
    this.usageSoFar = this.finished === 1 ? usage : addUsage(this.usageSoFar, usage);
    this.turnsCost = this.finished === 1 ? cost : sumCosts(this.turnsCost, cost);
  }

  /** Every hold grows by `extra`, each on its own; one that does not fit refuses (the others keep it until closing). */
  private async extend(extra: number): Promise<boolean> {
    const holds = this.holds!;
    if (holds.length === 1) return holds[0]!.extend(extra);
    return (await Promise.all(holds.map((hold) => hold.extend(extra)))).every(Boolean);
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
