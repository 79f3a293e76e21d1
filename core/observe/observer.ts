/**
 * What the request path tells the operator surface (metrics, traces). The pipeline calls these at three moments it
 * already has — a model turn metered, a server-tool call finished, a request settled — so observing adds no work of
 * its own while a request runs: metrics count at those moments, and a trace is assembled from them once the request
 * has ended (core/observe/tracing/request-trace.ts). `deps.observer` is optional: hand-built deps need none.
 */
import type { ServerToolPart } from "../model/parts.ts";
import type { FinishReason } from "../model/response.ts";
import type { Cost, Usage } from "../model/usage.ts";
import type { RequestContext } from "../pipeline/context.ts";
import type { Endpoint } from "../routing/catalog.ts";

export interface Observer {
  /** One model turn was metered at the endpoint that served it (core/pipeline/turn/meter.ts), once per turn. */
  turn(ctx: RequestContext, endpoint: Endpoint, usage: Usage, cost: Cost, finish: FinishReason): void;
  /** One server-tool call ended (core/pipeline/agent/tool-runner.ts); `startedAt` is Unix ms on the deps clock. */
  toolCall(ctx: RequestContext, part: ServerToolPart, startedAt: number): void;
  /** The request settled with its final status (core/pipeline/request-log.ts: HTTP or batch item), once. */
  request(ctx: RequestContext, status: number): void;
}
