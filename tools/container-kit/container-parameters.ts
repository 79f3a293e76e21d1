/**
 * The request-entry `parameters` the container tools share (shell, files, apply_patch): where the
 * container comes from (`environment`), how long it idles before it expires (`sleep_after_seconds`), and for the tools
 * that can run on the client, who runs the call (`engine`). Kept in one place so the four tools accept exactly the
 * same shapes and turn them into the same `ContainerRequest`.
 */
import { type Static, Type } from "@sinclair/typebox";
import type { ContainerEnvironment, ContainerRequest } from "../../core/sdk/index.ts";

/** The container service's idle-timer bound (max 2,592,000 = 30 days). */
export const MAX_SLEEP_AFTER_SECONDS = 2_592_000;

export const Environment = Type.Union([
  Type.Object({ type: Type.Literal("container_auto") }, { additionalProperties: false }),
  Type.Object(
    { type: Type.Literal("container_reference"), container_id: Type.String({ minLength: 1, maxLength: 256 }) },
    { additionalProperties: false },
  ),
]);

const SleepAfterSeconds = Type.Integer({ minimum: 1, maximum: MAX_SLEEP_AFTER_SECONDS });

/**
 * `engine`: `service` runs the call in the gateway's sandbox; `auto` is the same (this gateway always prefers its own
 * sandbox); `native` hands the call back to the client, which runs it (core/tools/declared.ts offers the tool as an
 * ordinary function, so the call ends the turn like any client tool call).
 */
export const Engine = Type.Union([Type.Literal("service"), Type.Literal("auto"), Type.Literal("native")]);

/** bash, shell and apply_patch: the container plus the engine. */
export const EngineContainerParameters = Type.Object(
  { engine: Type.Optional(Engine), environment: Type.Optional(Environment), sleep_after_seconds: Type.Optional(SleepAfterSeconds) },
  { additionalProperties: false },
);

/** files: always runs in the gateway's container (there is no client-side files tool to hand it to). */
export const ContainerParameters = Type.Object(
  { environment: Type.Optional(Environment), sleep_after_seconds: Type.Optional(SleepAfterSeconds) },
  { additionalProperties: false },
);

export type ContainerToolParameters = Static<typeof EngineContainerParameters>;

/** What to ask `ctx.container()` for, from the entry's (already schema-checked) parameters. */
export function containerRequest(parameters: Record<string, unknown>, restart = false): ContainerRequest {
  const params = parameters as ContainerToolParameters;
  const request: ContainerRequest = {};
  if (params.environment !== undefined) request.environment = params.environment as ContainerEnvironment;
  if (params.sleep_after_seconds !== undefined) request.sleepAfterSeconds = params.sleep_after_seconds;
  if (restart) request.restart = true;
  return request;
}
