/**
 * What Claude on Vertex AI does not take of what the Anthropic translation would send: fast mode (`speed`, a
 * first-party API setting) and the MCP connector (`mcp_servers`, an API beta that Vertex does not serve). Each is left
 * out here with a warning (README "Strict mode" turns it into a 422) before the translation runs. Gemini on Vertex
 * takes what the Gemini translation sends.
 */
import type { CanonicalRequest } from "../../core/sdk/index.ts";
import { ANTHROPIC_PASSTHROUGH, isPlainObject, warnSpeed, warnUnsupported } from "../../core/sdk/provider.ts";

/** Anthropic request fields Vertex refuses, as an Anthropic client sends them (`passthrough.anthropic`). */
const API_ONLY_FIELDS = ["mcp_servers"] as const;

/** The request as Claude on Vertex can take it; the same object when nothing had to go (the usual case). */
export function forVertexAnthropic(request: CanonicalRequest): CanonicalRequest {
  let out = request;
  if (request.speed !== undefined) {
    warnSpeed(request, "Claude on Vertex AI", request.warnings);
    out = { ...out };
    delete out.speed;
  }
  const extra = request.passthrough?.[ANTHROPIC_PASSTHROUGH];
  if (isPlainObject(extra) && API_ONLY_FIELDS.some((field) => field in extra)) {
    const kept: Record<string, unknown> = { ...extra };
    for (const field of API_ONLY_FIELDS) {
      if (!(field in kept)) continue;
      delete kept[field];
      warnUnsupported(request.warnings, field, `${field} is not supported by Claude on Vertex AI and was not sent`);
    }
    out = { ...out, passthrough: { ...request.passthrough, [ANTHROPIC_PASSTHROUGH]: kept } };
  }
  return out;
}
