/** Simulator options: the provider config `options` of the `simulator` adapter, and the server's defaults. */
import { Type, type Static } from "@sinclair/typebox";

/** TypeBox schema of the simulator options (validated at start-up like every adapter's options). */
export const simulatorOptionsSchema = Type.Object(
  {
    /** Milliseconds before the reply starts (time to first byte). */
    latency_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 600_000 })),
    /** Milliseconds between stream chunks; 0 means no timers at all. */
    chunk_delay_ms: Type.Optional(Type.Integer({ minimum: 0, maximum: 60_000 })),
    /** Reply length in tokens (see tokenizer.ts). */
    output_tokens: Type.Optional(Type.Integer({ minimum: 0, maximum: 100_000 })),
    /** Tokens per stream chunk. */
    tokens_per_chunk: Type.Optional(Type.Integer({ minimum: 1, maximum: 100_000 })),
    /** Fail every request with this HTTP status. */
    fail_status: Type.Optional(Type.Integer({ minimum: 400, maximum: 599 })),
    /** Message of those failures. */
    fail_message: Type.Optional(Type.String()),
  },
  { additionalProperties: false },
);

/** The simulator options. */
export type SimulatorOptions = Static<typeof simulatorOptionsSchema>;

/** Defaults for unset options. */
export const SIMULATOR_DEFAULTS = {
  latency_ms: 0,
  chunk_delay_ms: 0,
  output_tokens: 16,
  tokens_per_chunk: 1,
} as const;
