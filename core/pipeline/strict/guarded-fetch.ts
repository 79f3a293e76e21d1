/**
 * The one moment an adapter's translation is complete and nothing has left yet: its first upstream fetch. Every
 * adapter builds its whole body first and then sends it through the injected `helpers.fetch` (the provider kit's
 * `postJson`/`postBody` do), so in strict mode an attempt hands the adapter helpers whose fetch first looks at what
 * the adapter reported through `call.warn` while building, and refuses — without calling the upstream — when
 * anything was lost, naming every field at once. The fetch is that moment for any adapter, the kit's or not. Per
 * attempt and only in strict mode: it closes over that attempt's own warnings list.
 */
import type { GatewayError } from "../../errors.ts";
import type { Warning } from "../../model/warnings.ts";
import type { ModuleHelpers } from "../../registry/helpers.ts";
import { strictRefusal } from "./refusal.ts";

export interface StrictGuard {
  /** The attempt's warnings list, and how many entries were there before the adapter ran (not its doing). */
  warnings: Warning[];
  from: number;
  /** Who would have been called, for the message. */
  upstream: string;
  /** Aborts the attempt with the refusal, so the adapter's transport error handling passes it on unchanged. */
  abort(reason: GatewayError): void;
}

export function strictHelpers(helpers: ModuleHelpers, guard: StrictGuard): ModuleHelpers {
  let checked = false;
  return {
    ...helpers,
    fetch: (input, init) => {
      // Only the first call: warnings recorded later describe the upstream's reply, which no longer can be refused.
      if (!checked) {
        checked = true;
        const refusal = strictRefusal(guard.warnings.slice(guard.from), guard.upstream);
        if (refusal) {
          guard.abort(refusal);
          return Promise.reject(refusal);
        }
      }
      return helpers.fetch(input, init);
    },
  };
}
