/**
 * Request fields several upstreams have no place for, reported the same way by each adapter that cannot carry them
 * (never dropped in silence). Each adapter calls only those it cannot honour.
 */
import type { CanonicalRequest } from "../model/request.ts";
import type { Warning } from "../model/warnings.ts";
import { warnUnsupported } from "./warnings.ts";

/** Chat's per-message `name` (a participant name), for upstreams whose messages have none. */
export function warnMessageNames(request: CanonicalRequest, upstream: string, warnings: Warning[]): void {
  const named = request.messages.filter((message) => message.name !== undefined).length;
  if (named === 0) return;
  warnUnsupported(warnings, "messages.name", `${upstream} messages carry no participant name; \`name\` on ${named} message(s) was not sent`);
}

/** Messages' `speed` (`fast` / `standard`): only Anthropic has it. */
export function warnSpeed(request: CanonicalRequest, upstream: string, warnings: Warning[]): void {
  if (request.speed === undefined) return;
  warnUnsupported(warnings, "speed", `${upstream} has no speed setting; speed ${request.speed} was not sent`);
}

/** A function tool's `async` flag, for upstreams without async tools: the tool is still sent, as an ordinary one. */
export function warnAsyncTools(request: CanonicalRequest, upstream: string, warnings: Warning[]): void {
  request.tools.forEach((tool, i) => {
    if (tool.kind === "function" && tool.async === true) {
      warnUnsupported(warnings, `tools[${i}].async`, `${upstream} has no async tools; the tool was sent as an ordinary tool`);
    }
  });
}

/** Output modalities other than text, for upstreams that answer with text only. */
export function warnNonTextModalities(request: CanonicalRequest, upstream: string, warnings: Warning[]): void {
  const others = (request.modalities ?? []).filter((m) => m !== "text");
  if (others.length === 0) return;
  warnUnsupported(warnings, "modalities", `${upstream} answers with text only; ${others.join(", ")} output was not requested`);
}
