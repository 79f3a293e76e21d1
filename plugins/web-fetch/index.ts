/**
 * `web-fetch`: lets the model fetch web pages. It adds the `service:web_fetch` server tool to the
 * request (unless the request declares it already), so the agent loop runs the model's fetches with the tool's own
 * extraction, limits and network policy; nothing here fetches by itself. Options map onto the tool's parameters:
 * `max_uses` (1–50), `max_content_tokens`, `allowed_domains` / `blocked_domains` (≤ 50 each; a blocked domain wins).
 */
import { Type } from "@sinclair/typebox";
import { definePlugin, parseDomainRules, type PluginContext } from "../../core/sdk/index.ts";

const ID = "web-fetch";
const FETCH_TOOL = "service:web_fetch";
/** The tool's hard cap on fetches per request. */
const MAX_USES = 50;
const Domains = Type.Array(Type.String({ minLength: 1, maxLength: 300 }), { maxItems: 50 });

export default definePlugin({
  id: ID,
  description: "Lets the model fetch web pages (adds the service:web_fetch server tool).",
  priority: -40,
  // It adds the web_fetch tool to the request.
  requires: { tools: [FETCH_TOOL] },
  optionsSchema: Type.Object(
    {
      max_uses: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_USES })),
      max_content_tokens: Type.Optional(Type.Integer({ minimum: 1 })),
      allowed_domains: Type.Optional(Domains),
      blocked_domains: Type.Optional(Domains),
    },
    { additionalProperties: false },
  ),
  hooks: {
    pre(ctx) {
      if (ctx.request.tools.some((tool) => tool.kind === "server" && tool.type === FETCH_TOOL)) return;
      const parameters: Record<string, unknown> = {};
      for (const key of ["max_uses", "max_content_tokens", "allowed_domains", "blocked_domains"] as const) {
        if (ctx.options[key] !== undefined) parameters[key] = ctx.options[key];
      }
      checkDomains(ctx, "allowed_domains");
      checkDomains(ctx, "blocked_domains");
      ctx.request = { ...ctx.request, tools: [...ctx.request.tools, { kind: "server", type: FETCH_TOOL, parameters }] };
      ctx.report({ summary: "offered service:web_fetch to the model", data: parameters });
    },
  },
});

/** A domain entry that is not a host (or host/path) is a 400 naming it, before the tool would name its own field. */
function checkDomains(ctx: PluginContext, key: "allowed_domains" | "blocked_domains"): void {
  const list = ctx.options[key];
  if (!Array.isArray(list)) return;
  const { badIndex } = parseDomainRules(list as string[]);
  if (badIndex === undefined) return;
  const index = ctx.request.plugins.findIndex((entry) => entry.id === ID);
  const param = `${index === -1 ? `plugins.${ID}` : `plugins[${index}]`}.${key}[${badIndex}]`;
  throw ctx.helpers.error("invalid_request", `${param}: "${String(list[badIndex])}" is not a domain name`, { metadata: { param } });
}
