/**
 * The provider adapter kit (`inference-gateway/sdk/provider`): what every built-in adapter is written with, published
 * so that an adapter from another package need not rewrite it. An adapter imports the contracts and the canonical
 * model from `inference-gateway/sdk` and, from here, the upstream HTTP client (`postJson`, `readJsonObject`,
 * `streamBody`: the call's own `helpers.fetch` and signal, transport failures and non-2xx replies as GatewayErrors
 * routing can act on), the SSE parser, the upstream error mapping, the in-band stream failures, the warnings for what
 * an upstream cannot carry, and a few pure helpers of the canonical model. Every value here is a plain function or
 * constant; errors are built with the call's `helpers.error` (or carry the gateway's error brand), so a copy of this
 * kit inside another package still makes errors the gateway recognises.
 *
 *     const response = await postJson(call, `${call.target.baseUrl}/chat`, body, bearerHeaders(call));
 *     for await (const event of parseSse(streamBody(call, response))) { … }
 *
 * examples/providers/tiny-chat.ts is a complete adapter written against it.
 */

// Upstream HTTP: one POST with the call's fetch and signal; bodies read as JSON objects or as a stream.
export { bearerHeaders, postBody, postJson, readJson, readJsonObject, streamBody, transportFailure, unexpectedBody } from "../provider-kit/http.ts";
export type { CallContext, PostJsonOptions, UpstreamErrorMapper } from "../provider-kit/http.ts";

// Server-Sent Events, incrementally (LF, CRLF or CR line ends; chunks split anywhere).
export { parseSse } from "../provider-kit/sse.ts";
export type { SseEvent } from "../provider-kit/sse.ts";

// Upstream errors → GatewayErrors (status table, documented codes, Retry-After), and a stream's own failures.
export { mapUpstreamError, parseRetryAfter, upstreamErrorFields } from "../provider-kit/errors.ts";
export type { ErrorFactory, UpstreamErrorFields } from "../provider-kit/errors.ts";
export { parseJsonObject, parseTypedEvent, shapelessStream, streamInterrupted, streamReadFailure } from "../provider-kit/stream.ts";
/** Brand checks that hold for a GatewayError made by any copy of the SDK, and for the canonical error type names. */
export { isErrorType, isGatewayError } from "../errors.ts";

// What an upstream cannot carry: warnings (README "Strict mode" turns them into a 422), native server tools, deferred tools.
export { reporting, translate, warnUnsupported, type WarningSink } from "../provider-kit/warnings.ts";
/** Pushes any warning (`code`, the request field it concerns, a sentence) onto a request's or a response's list. */
export { warn } from "../model/warnings.ts";
export { warnAsyncTools, warnMessageNames, warnNonTextModalities, warnSpeed } from "../provider-kit/request-fields.ts";
export {
  bareDomain,
  isNativeServerTool,
  isNativeWebSearch,
  nativeWebSearchParameters,
  refuseNativeServerTool,
  refuseNativeServerTools,
  WEB_SEARCH,
} from "../provider-kit/native-tools.ts";
export type { NativeWebSearchParameters, ServerTool } from "../provider-kit/native-tools.ts";
export { resolveDeferredTools } from "../provider-kit/deferred-tools.ts";

// Bearer tokens from an OAuth 2 token endpoint: cached, renewed in the background, one request shared by every waiter.
export { CachedToken, REFUSAL_PAUSE_MS, RENEWAL_PAUSE_MS, TOKEN_TIMEOUT_MS } from "../provider-kit/cached-token.ts";
export type { TokenContext, TokenIssuer, TokenRefusal } from "../provider-kit/cached-token.ts";

// Embeddings: the OpenAI-shaped call (OpenAI, compatible servers, Azure deployments), floats in input order.
export { openAiEmbeddings, openAiEmbeddingsBody } from "../provider-kit/openai-embeddings.ts";
export type { OpenAiEmbeddingsBody } from "../provider-kit/openai-embeddings.ts";
/** `generate` / `stream` of an upstream with no chat API (a rerank or embeddings service): a 400 naming it. */
export { retrievalOnly } from "../provider-kit/retrieval-only.ts";
/** Little-endian float32 bytes of a vector in base64, as OpenAI's `encoding_format: "base64"` sends it. */
export { float32Base64 } from "../formats/embeddings/encode.ts";

// Usage.
export { openAiFamilyUsage } from "../provider-kit/usage.ts";
/** Usage with every count 0 (a reply that reported none). */
export { emptyUsage } from "../model/usage.ts";

// Media: data: URLs in and out, generated images.
export { isHttpUrl, parseDataUrl } from "../provider-kit/data-url.ts";
export type { DataUrl } from "../provider-kit/data-url.ts";
/** `data:<type>;…` → `<type>` (undefined for any other URL), as the format decoders set `mediaType`. */
export { mediaTypeOf } from "../formats/shared/parts.ts";
/** `dataUrl(mediaType, bytes)` builds a base64 `data:` URL; `imageMediaType("jpeg")` is `image/jpeg` (png by default). */
export { dataUrl, imageMediaType } from "../images/data-url.ts";
/**
 * `images()` for an adapter whose upstream makes images only as chat output: one `generate` call asking for
 * `modalities: ["image", "text"]`, the reply's images as the result (a reply without one is a retryable 502).
 */
export { imagesViaChat } from "../images/via-chat.ts";

// Plain JSON, and the names an Anthropic-family adapter shares with the Messages format.
/** A plain JSON object (not an array, not null). */
export { isPlainObject } from "../formats/shared/server-tool-fields.ts";
export { ANTHROPIC_BETA_PASSTHROUGH, ANTHROPIC_PASSTHROUGH, ANTHROPIC_REASONING_FORMAT } from "../model/anthropic-names.ts";
