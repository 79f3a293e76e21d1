/**
 * The public SDK entry (`inference-gateway/sdk`): what a third-party plugin, server tool or provider adapter may
 * import. Types with `import type`; the runtime values here are pure (the `define*` helpers brand a module with a
 * global `Symbol.for` tag, so a copy of this file inside another package still makes modules the gateway accepts;
 * the outcome helpers build plain objects). Everything else a module needs at run time (errors, logger, fetch, kv,
 * documents read off the event loop) arrives on its context's `helpers`, never by importing our internals.
 */
export { defineProvider, definePlugin, defineTool, MODULE_API_VERSION } from "../registry/define.ts";
export type { Brand, ModuleBase, ModuleKind, ModuleRequirements } from "../registry/define.ts";

// Module contracts.
export type {
  PluginContext,
  PluginHooks,
  PluginModule,
  RouteCandidate,
  RouteDecision,
  Turn,
  TurnOptions,
} from "../registry/plugin.ts";
export type { ToolDeclaration, ToolModule, ToolRunContext } from "../registry/tool.ts";
export type { DiscoveredModel, DiscoveryCall, ProviderAdapter, ProviderCall, ProviderKind, UpstreamTarget } from "../registry/provider.ts";
export type { GeneratedImage, ImageCall, ImageGeneration, ImageGenerationRequest, ImageRequest } from "../images/types.ts";
export type {
  EmbeddingCall,
  EmbeddingRequest,
  EmbeddingResult,
  EmbeddingTask,
  RankedDocument,
  RerankCall,
  RerankRequest,
  RerankResult,
  RerankTask,
  RetrievalOutput,
  RetrievalTask,
} from "../retrieval/types.ts";
/** The image parameters `service:image_generation` accepts, for tools and plugins that offer the same choices. */
export { ASPECT_RATIOS, IMAGE_BACKGROUNDS, IMAGE_FORMATS, IMAGE_MODERATIONS, IMAGE_QUALITIES, IMAGE_SIZES } from "../images/types.ts";
/** Containers as a tool sees them (`ToolRunContext.container()`), and the error that becomes the model's error result. */
export { ContainerError } from "../containers/contract.ts";
export type { ContainerEnvironment, ContainerFileInfo, ContainerHandle, ContainerRequest, ExecOptions, ExecResult } from "../containers/contract.ts";
/** How long a container command may wait for a sandbox slot by default (`sandbox.queue_timeout_ms`), before it runs. */
export { DEFAULT_QUEUE_TIMEOUT_MS as DEFAULT_SANDBOX_QUEUE_TIMEOUT_MS } from "../sandbox/settings.ts";
/** Container file ids exactly as `GET /containers/{id}/files` shows them (`cfile_` + base64url of the path). */
export { fileIdOf, pathOfFileId } from "../containers/file-ids.ts";
/** URL citations of searched or fetched pages in a text (the canonical `url_citation` annotation). */
export { citationsIn, sourcesOf } from "../pipeline/agent/citations.ts";
export type { Source, UrlCitation } from "../pipeline/agent/citations.ts";
export type { FetchFunction, ModuleHelpers } from "../registry/helpers.ts";
/** A response body read up to a byte cap, the rest never downloaded. */
export { readCapped } from "../net/read-capped.ts";
export type { CappedBody } from "../net/read-capped.ts";
/**
 * Domain filters as web_search and web_fetch read them (`allowed_domains`, `blocked_domains`, …): `example.com` and
 * its subdomains, optionally narrowed to a path prefix (`openai.com/blog`).
 */
export { domainRefusal, domainRules, excludeHosts, includeHosts, matchesRule, parseDomainRule, parseDomainRules } from "../net/domain-rules.ts";
export type { DomainRule } from "../net/domain-rules.ts";
export type { CatalogView, EndpointView, ModelView } from "../routing/catalog-view.ts";
export type { Percentiles } from "../routing/stats.ts";
export type { Pricing } from "../config/types.ts";
export type { Kv } from "../kv/kv.ts";
/** Documents read in worker threads under the gateway's caps (`helpers.documents`): a PDF's text, a page as Markdown. */
export type { DocumentFailure, DocumentFailureReason, DocumentJobs, DocumentResult, HtmlMarkdown, PdfText, ReadOptions } from "../jobs/documents/types.ts";

// Outcomes: what a turn and a plugin's `around` hook resolve with.
export { mapStream, responseOutcome, streamOutcome } from "../pipeline/outcome.ts";
export type { Outcome, ResponseOutcome, StreamObserver, StreamOutcome } from "../pipeline/outcome.ts";

// The canonical model.
export { collect, ResponseBuilder } from "../model/collect.ts";
export { eventsFromResponse } from "../model/replay.ts";
export type { EventStream, StreamEvent } from "../model/events.ts";
export type {
  AudioPart,
  CacheMark,
  FilePart,
  ImagePart,
  Message,
  Part,
  ReasoningPart,
  RefusalPart,
  Role,
  ServerToolPart,
  TextPart,
  ToolCallPart,
  ToolResultPart,
} from "../model/parts.ts";
export type {
  CanonicalRequest,
  InboundFormat,
  OutputFormat,
  PluginRequest,
  ReasoningSettings,
  SamplingSettings,
  ServiceTier,
  StopCondition,
  Tool,
  ToolChoice,
} from "../model/request.ts";
export type { AlignmentReport, CanonicalResponse, Finish, FinishReason, ResponseError } from "../model/response.ts";
export type { Cost, Usage } from "../model/usage.ts";
export type { Warning } from "../model/warnings.ts";
export { lastUserText } from "../model/message-text.ts";
// Prompt size in tokens (o200k_base, loaded on first use), as the gateway itself counts it.
export { byteBound, fixedTokens, messageTokens, tokenizer } from "../model/tokens.ts";
export type { Measure, SlicedTokenizer, Tokenizer } from "../model/tokens.ts";

// Regular expressions in linear time (core/regex): `linearRegExp(source, flags)` answers `test` as RegExp does, for
// the patterns a backtracking engine could hang on, with a StepBudget bounding the work of one or many tests.
export { linearRegExp, PatternError, RegexBudgetError, StepBudget } from "../regex/index.ts";
export type { CompileOptions, LinearRegExp } from "../regex/index.ts";

// Errors: build them with `helpers.error(...)` (a GatewayError the pipeline recognises whatever copy you have).
export type { ErrorType, GatewayError, GatewayErrorInit } from "../errors.ts";
