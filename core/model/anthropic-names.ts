/**
 * Names the Messages format (core/formats/messages/) and an adapter of an Anthropic upstream agree on: where the
 * decoder leaves Anthropic-only request fields and the client's `anthropic-beta` values in
 * `CanonicalRequest.passthrough`, and the reasoning `format` that marks a thinking block as Anthropic's own (its
 * signature passes back untouched). Exported by `inference-gateway/sdk/provider`.
 */

/** `passthrough` key holding Anthropic-only request fields for a native Anthropic upstream. */
export const ANTHROPIC_PASSTHROUGH = "anthropic";
/** `passthrough` key holding the client's `anthropic-beta` header values. */
export const ANTHROPIC_BETA_PASSTHROUGH = "anthropic_beta";
/** The canonical `format` of Anthropic reasoning. */
export const ANTHROPIC_REASONING_FORMAT = "anthropic-claude-v1";
