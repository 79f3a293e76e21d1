/** Builds the helpers object handed to modules (one per process, not per request). */
import type { FetchFunction } from "./helpers.ts";
import type { Logger } from "pino";
import { GatewayError } from "../errors.ts";
import type { Clock, IdGenerator } from "../deps.ts";
import type { Kv } from "../kv/kv.ts";
import type { ModuleHelpers } from "./helpers.ts";
import type { DocumentJobs } from "../jobs/documents/types.ts";
import { sharedDocumentService } from "../jobs/documents/service.ts";

export function createModuleHelpers(parts: { logger: Logger; fetch: FetchFunction; kv: Kv; clock: Clock; ids: IdGenerator; documents?: DocumentJobs }): ModuleHelpers {
  return Object.freeze({
    error: (type, message, init) => new GatewayError(type, message, init),
    logger: parts.logger,
    fetch: parts.fetch,
    kv: parts.kv,
    // The gateway passes its own, configured and closed with it; conformance runs and tests get the defaults.
    documents: parts.documents ?? sharedDocumentService(),
    now: () => parts.clock.now(),
    id: (prefix: string) => parts.ids.id(prefix),
  } satisfies ModuleHelpers);
}
