/**
 * Strict translation mode: what a translation could not carry — recorded as a warning otherwise —
 * refuses the request with 422 `unprocessable` instead, before any upstream is called.
 *
 * Every warning a format decoder or a provider adapter's request builder records counts (a dropped, approximated,
 * unknown or conflicting field), except codes that report a gateway default rather than a loss of something the client
 * sent (`defaulted`: Anthropic's required `max_tokens` filled in from the config). Warnings raised elsewhere (routing
 * skipping an unknown model, an operator-locked plugin, guardrails, the agent loop, what a result could not render)
 * are not translations of the request and are never looked at: callers pass only the decoder's or the adapter's own.
 */
import { GatewayError } from "../../errors.ts";
import type { Warning } from "../../model/warnings.ts";

/** Warning codes that report something the gateway filled in, not something of the client's it dropped. */
const NOT_A_LOSS: ReadonlySet<string> = new Set(["defaulted"]);

/** Whether strict mode refuses a request over this warning. */
export function refusesInStrictMode(warning: Warning): boolean {
  return !NOT_A_LOSS.has(warning.code);
}

/**
 * The 422 for `warnings` in strict mode, or undefined when none of them counts. The message names every field
 * concerned; `metadata.param` is the first of them and `metadata.warnings` lists the warnings themselves.
 */
export function strictRefusal(warnings: readonly Warning[], upstream?: string): GatewayError | undefined {
  const counted = warnings.filter(refusesInStrictMode);
  if (counted.length === 0) return undefined;
  const fields = [...new Set(counted.map((w) => w.field ?? w.code))];
  const where = upstream === undefined ? "" : ` to ${upstream}`;
  const detail = counted.map((w) => (w.field === undefined ? w.message : `${w.field}: ${w.message}`)).join("; ");
  const message = `Strict mode: the request cannot be translated${where} without loss (${fields.join(", ")}). ${detail}`;
  return new GatewayError("unprocessable", message, { metadata: { param: fields[0], fields, warnings: counted.map((w) => ({ ...w })) } });
}
