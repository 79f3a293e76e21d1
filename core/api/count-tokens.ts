/**
 * `POST /messages/count_tokens`: Anthropic's token count of a Messages request — its body minus
 * `max_tokens`, answered `{input_tokens}`. Claude Code's `/context` and the Anthropic SDK's `countTokens` call it;
 * without it they fell back to billed one-token `/messages` calls. Counted here with the o200k_base tokenizer over
 * system, messages and tools (the measure the context-compression plugin decides with), so it is an estimate of
 * what an upstream's own tokenizer would count; the upstream is never called and nothing is billed.
 */
import { Elysia, t } from "elysia";
import { requireInference, type Authenticator } from "../auth/authenticate.ts";
import type { Deps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import { messagesFormat } from "../formats/messages/index.ts";
import { bodyChecker, jsonRequestBody } from "../http/body-check.ts";
import type { CanonicalRequest } from "../model/request.ts";
import { mergePresets } from "../presets/merge.ts";
import { tokenizer } from "../model/tokens.ts";

/**
 * Tokens of the prompt `request` would send: system, tool definitions and every message with its framing. Counted in
 * slices that give the event loop back, so a 10 MB body delays nobody else (core/model/o200k.ts).
 */
export async function promptTokens(request: CanonicalRequest): Promise<number> {
  const counter = (await tokenizer()).sliced();
  let total = await counter.fixed(request.system, request.tools);
  for (const message of request.messages) total += await counter.message(message);
  return total;
}

/** A model /messages would refuse is refused here too, with the same words (core/pipeline/turn/route.ts). */
function checkModel(deps: Deps, request: CanonicalRequest): void {
  const model = request.model;
  if (model === undefined || deps.catalog.get(model)) return;
  if (deps.registry.orderedPlugins().some((plugin) => plugin.models?.includes(model) === true)) return;
  throw new GatewayError("invalid_request", `Model "${model}" is not available on this gateway`, {
    metadata: { availability: { code: "model_not_found", retryable: false, requested_models: [model] } },
  });
}

export function countTokensRoute(deps: Deps, auth: Authenticator) {
  const checkBody = bodyChecker(messagesFormat.schema);
  return new Elysia({ name: "route:messages:count_tokens" })
    .derive({ as: "local" }, async ({ request }) => ({ principal: await auth.authenticate(request.headers) }))
    .post(
      "/messages/count_tokens",
      async ({ body, request, principal }) => {
        // An inference key, as for /messages; a preset's system prompt and messages count as they would be sent.
        requireInference(principal);
        await mergePresets(deps.store.presets, principal.workspaceId, "messages", body);
        const decoded = messagesFormat.decode(checkBody(body) as Record<string, unknown>, request.headers);
        checkModel(deps, decoded);
        return { input_tokens: await promptTokens(decoded) };
      },
      {
        parse: "json",
        response: { 200: t.Object({ input_tokens: t.Integer({ minimum: 0 }) }) },
        detail: {
          summary: "Count the input tokens of a Messages request (Anthropic's count_tokens; an estimate, never billed)",
          tags: ["inference"],
          requestBody: jsonRequestBody(messagesFormat.schema),
        },
      },
    );
}
