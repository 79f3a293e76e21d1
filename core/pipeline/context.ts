/** The per-request context every stage reads and writes. */
import type { Bill } from "../accounting/bill.ts";
import type { CacheReport, CacheSetting } from "../cache/setting.ts";
import type { Principal } from "../auth/principal.ts";
import type { ByokEntry } from "../byok/credentials.ts";
import type { Deps } from "../deps.ts";
import type { WireFormat } from "../formats/format.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { ActivePlugin } from "./plugins/active.ts";
import type { TraceRecords } from "../observe/tracing/records.ts";
import type { Endpoint } from "../routing/catalog.ts";
import type { RoutePlan } from "../routing/plan.ts";

/** One upstream attempt, recorded for `service_metadata` and the generation record. */
export interface Attempt {
  model: string;
  providerId: string;
  startedAt: number;
  endedAt?: number;
  status?: number;
  errorType?: string;
  /** The service tier this endpoint was asked to serve at. */
  tier?: string;
}

/** The routing stage's plan, plus the sticky session it looked up. */
export interface RouteState extends RoutePlan {
  /** The request's session pin: its kv key, the model it pins and the provider pinned (if any yet). */
  sticky: { key: string; model: string; pinned: string | undefined } | undefined;
}

/** A `service_metadata.pipeline` entry: data about what a stage or plugin did (not the log line). */
export type PipelineEntry = Record<string, unknown> & { type: string; name: string };

export interface RequestContext {
  readonly deps: Deps;
  readonly format: WireFormat;
  readonly headers: Headers;
  /** Aborted when the client goes away; adapters pass it upstream. */
  readonly signal: AbortSignal;
  readonly startedAt: number;
  /** Also the `X-Generation-Id` header and the response `id`. */
  readonly generationId: string;
  /** Set by the edge (so 401 precedes body validation) or by the auth stage (batch worker). */
  principal: Principal | undefined;
  request: CanonicalRequest;
  /** `X-Service-Metadata: enabled` (or the legacy header). */
  readonly metadataOptIn: boolean;
  /**
   * Strict translation mode (README "Strict mode"), settled by the strict stage: a translation warning is then a 422
   * before the upstream is called. Absent before that stage ran (hand-built contexts): not strict.
   */
  strict?: boolean;
  /** The latest turn's ordered endpoints to try, built by routing (for `service_metadata`). */
  candidates: Endpoint[];
  /** How routing chose the latest turn's candidates (tiers, exclusions, sticky pin); absent before routing ran. */
  route?: RouteState;
  /**
   * A plugin's sub-request run inside this one (core/pipeline/plugins/nested.ts): its turns never use the request's
   * own reservation, each holds its own worst case (Bill.turnStarts).
   */
  subRequest?: true;
  /** The batch a batch item belongs to (core/batches/execute.ts); absent for an HTTP request. */
  batchId?: string;
  /** The `cache` setting of the preset the request named, when it has one (README "Response cache"); set by the edge. */
  presetCache?: CacheSetting;
  /** The `cache` setting of the request's workspace, when it has one (README "Response cache"); set by the limits stage. */
  workspaceCache?: CacheSetting;
  /** What the response cache did, when the request used it (its stage): X-Service-Cache, service_metadata.cache. */
  cacheReport?: CacheReport;
  /** Extra reply headers: the X-RateLimit-* of a gateway-issued 429, the response cache's X-Service-Cache. */
  replyHeaders?: Record<string, string>;
  /** Every upstream attempt of every turn, in order. */
  attempts: Attempt[];
  /** The endpoint that served the latest turn. */
  served: Endpoint | undefined;
  /** The BYOK credentials of the request's workspace and key (README "Bring your own keys"), set by the limits stage. */
  byok?: readonly ByokEntry[];
  /** Whether such a credential paid for the latest turn. */
  byokServed?: boolean;
  /**
   * The request's money, all of it (core/accounting/bill.ts): its credit holds, what its turns, plugins and tools
   * spent, its ending. Opened by the limits stage, closed by accounting; everything else calls its methods.
   */
  readonly bill: Bill;
  /** Plugins active for this request (resolved once by the plugins stage). */
  plugins: readonly ActivePlugin[];
  /** Entries of `service_metadata.pipeline`, in the order they were added. */
  readonly pipeline: PipelineEntry[];
  /**
   * Containers the request's server tools used (bash, shell, files, apply_patch), set by the agent loop as it ends:
   * the Messages result's `container`. Absent when none was used.
   */
  usedContainers?: ReadonlyArray<{ id: string; expiresAt: number }>;
  /** Time to first token for streams (ms since start), for the generation record. */
  firstTokenMs: number | undefined;
  /**
   * What tracing keeps of the request beyond the context (each metered turn, each server-tool call), when tracing is
   * on: core/observe/tracing/records.ts. A slot set up with the context rather than a side map, whose lookups and
   * weak entries cost every traced request.
   */
  traceRecords: TraceRecords | undefined;
  /** Fields for the one request log line. */
  readonly log: Record<string, unknown>;
}
