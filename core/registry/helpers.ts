/**
 * What a module receives at run time instead of importing our runtime values:
 * a module outside the binary gets its own copy of anything it imports, so errors, logging, fetch and kv come from here.
 */
import type { Logger } from "pino";
import type { ErrorType, GatewayError, GatewayErrorInit } from "../errors.ts";
import type { Kv } from "../kv/kv.ts";
import type { DocumentJobs } from "../jobs/documents/types.ts";

/** The part of `fetch` modules may rely on (the gateway's upstream client implements exactly this). */
export type FetchFunction = (input: string | URL | Request, init?: RequestInit) => Promise<Response>;

export interface ModuleHelpers {
  /** Builds a GatewayError recognised by the pipeline (brand check), whatever copy of our code the module has. */
  error(type: ErrorType, message: string, init?: GatewayErrorInit): GatewayError;
  logger: Logger;
  /**
   * Outbound HTTP. On a plugin's or a tool's context it is under the network policy (the context's `fetch`): the one
   * for any URL a request or a model names. On a provider call it is the upstream client, for the provider's
   * configured `base_url`. Tests inject a recording fake.
   */
  fetch: FetchFunction;
  kv: Kv;
  /** PDFs and HTML pages read in worker threads under the config's `documents` caps (README "Caps on heavy work"). */
  documents: DocumentJobs;
  now(): number;
  id(prefix: string): string;
}
