/**
 * What the simulator's engine acts on (from-canonical.ts): the tools it may call, the tool choice, the output cap,
 * and a structured reply's format. Everything else is accepted and has no effect on its deterministic reply, so it
 * is not listed.
 */
export const SIMULATOR_PARAMETERS = Object.freeze(["tools", "tool_choice", "max_tokens", "response_format", "structured_outputs"]);
