/**
 * Azure OpenAI's error replies → GatewayErrors. Azure answers in OpenAI's `{error:{message,type,code}}` shape (so the
 * kit's table does most of the work, `retry-after-ms` / `retry-after` of its 429s included), with two cases of its own:
 *
 * - a prompt its content filter refused: 400 `code: "content_filter"`, with `innererror: {code:
 *   "ResponsibleAIPolicyViolation", content_filter_result: {hate: {filtered, severity}, …}}` (chat completions) or
 *   `content_filters: [{blocked, source_type, content_filter_results}]` (Responses). A 400 `content_policy_violation`
 *   whose metadata names the categories that were filtered.
 * - `DeploymentNotFound` (404): the model entry's `upstream_model` names no deployment of this resource. The client's
 *   request is fine and another endpoint may serve it: a retryable 502, like any other configuration fault upstream.
 */
import type { GatewayError } from "../../core/sdk/index.ts";
import { type ErrorFactory, isPlainObject, mapUpstreamError, upstreamErrorFields } from "../../core/sdk/provider.ts";

type Json = Record<string, unknown>;

export function mapAzureError(status: number, body: unknown, headers: Headers, make: ErrorFactory): GatewayError {
  const error = isPlainObject(body) && isPlainObject(body.error) ? body.error : isPlainObject(body) ? body : undefined;
  if (error !== undefined) {
    const fields = upstreamErrorFields(body);
    const categories = status === 400 ? filteredCategories(error) : undefined;
    if (categories !== undefined) {
      const metadata: Json = { provider_code: "content_filter", provider_status: status, filtered_categories: categories };
      if (fields.message !== undefined) metadata.provider_message = fields.message;
      return make("content_policy_violation", "The prompt was refused by the upstream provider's content filter", { status: 400, retryable: false, metadata });
    }
    if (status === 404 && error.code === "DeploymentNotFound") {
      const metadata: Json = { provider_code: "DeploymentNotFound", provider_status: status };
      if (fields.message !== undefined) metadata.provider_message = fields.message;
      return make("provider_unavailable", "Upstream provider has no deployment of this model", { status: 502, retryable: true, metadata });
    }
  }
  return mapUpstreamError(status, body, headers, make);
}

/**
 * The categories Azure's filter flagged in a content-filter refusal (possibly none named), or undefined when the error
 * is not one.
 */
function filteredCategories(error: Json): string[] | undefined {
  const inner = isPlainObject(error.innererror) ? error.innererror : undefined;
  const filters = Array.isArray(error.content_filters) ? error.content_filters.filter(isPlainObject) : [];
  const isFilter = error.code === "content_filter" || inner?.code === "ResponsibleAIPolicyViolation" || filters.some((f) => f.blocked === true);
  if (!isFilter) return undefined;
  const results = [inner?.content_filter_result, ...filters.filter((f) => f.blocked !== false).map((f) => f.content_filter_results)];
  const categories = new Set<string>();
  for (const result of results) {
    if (!isPlainObject(result)) continue;
    for (const [category, verdict] of Object.entries(result)) if (isPlainObject(verdict) && verdict.filtered === true) categories.add(category);
  }
  return [...categories];
}
