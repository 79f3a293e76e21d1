/** What the container service's parts share: one object, built once by the service. */
import type { Logger } from "pino";
import type { SandboxConfig } from "../config/types.ts";
import type { Clock } from "../deps.ts";
import type { ExecResult, SandboxExecOptions } from "./contract.ts";
import type { ContainerDirectory } from "./directory.ts";
import type { KeyedLock } from "./lock.ts";

/**
 * The one thing the service needs of a sandbox backend (core/sandbox/backend.ts): run a command with a host
 * directory as the container's files. Structural, so any backend fits and tests can pass a small fake.
 */
export interface ContainerBackend {
  exec(root: string, command: string, options: SandboxExecOptions): Promise<ExecResult>;
}

export interface ContainerContext {
  directory: ContainerDirectory;
  backend: ContainerBackend;
  clock: Clock;
  settings: Pick<SandboxConfig, "maxBytes" | "maxFiles" | "listScanBound">;
  locks: KeyedLock;
  logger: Logger;
}
