/**
 * Containers (spec "Container file", operation 6): sandbox sessions the bash, shell, files and apply_patch server
 * tools run in, owned by a workspace, whose files outlive a request (and a restart) until their idle timer expires.
 * Three pieces meet here: the sandbox backends that run commands (core/sandbox), the container service that keeps
 * containers and their files (core/containers), and the tools (tools/bash, …) that use both through
 * `ToolRunContext.container()`.
 */

/** How a tool entry asks for its container (`parameters.environment`). */
export type ContainerEnvironment = { type: "container_auto" } | { type: "container_reference"; container_id: string };

/** What a tool call asks of the container service. */
export interface ContainerRequest {
  environment?: ContainerEnvironment;
  /** `parameters.sleep_after_seconds`: idle seconds before the container expires (default 900, max 2,592,000). */
  sleepAfterSeconds?: number;
  /** `restart: true`: a fresh container (id suffixed `-r<nonce>`) for the rest of this request. */
  restart?: boolean;
}

/** One command's outcome. */
export interface ExecResult {
  stdout: string;
  stderr: string;
  /** null when the command was killed at its deadline. */
  exitCode: number | null;
  timedOut: boolean;
  /** True when stdout or stderr was cut at `maxOutputBytes`. */
  truncated: boolean;
}

export interface ExecOptions {
  /** Wall-clock limit; the command is killed (its worker or process ended) at the deadline. */
  timeoutMs: number;
  /** Cap on each of stdout and stderr, in bytes. */
  maxOutputBytes: number;
  signal?: AbortSignal;
}

/** What the container service hands a sandbox backend: the tool's options and whose turn the command waits for. */
export interface SandboxExecOptions extends ExecOptions {
  /** The container's workspace: slots are shared fairly between workspaces (core/sandbox/fair-slots.ts). */
  workspace?: string;
}

/** A file in a container, as the listing shows it. */
export interface ContainerFileInfo {
  /** Relative to the container root, `/`-separated, no leading slash. */
  path: string;
  bytes: number;
  /** Unix seconds. */
  createdAt: number;
}

/** A container opened for one tool call: commands and file operations inside it, and nowhere else. */
export interface ContainerHandle {
  /** The canonical id, exactly as `GET /containers/{id}/files` takes it. */
  readonly id: string;
  /** Unix seconds at which it expires unless used again. */
  readonly expiresAt: number;
  exec(command: string, options: ExecOptions): Promise<ExecResult>;
  /** Paths relative to the container root; `..`, absolute paths and symlinks that leave the root are refused. */
  readFile(path: string): Promise<string>;
  writeFile(path: string, content: string): Promise<void>;
  deleteFile(path: string): Promise<void>;
  renameFile(from: string, to: string): Promise<void>;
  listFiles(filter?: string): Promise<ContainerFileInfo[]>;
}

/** A tool-facing failure (unknown or foreign container, quota exceeded): the model sees it as an error result. */
export class ContainerError extends Error {
  override readonly name = "ContainerError";
}

/** Who a request's containers belong to. */
export interface ContainerOwner {
  workspaceId: string;
  /** The request's session key (`session_id` / `x-session-id`): `container_auto` then reuses the session's container. */
  sessionKey?: string;
}

/** One request's view of the containers: a `restart` holds for the rest of the request; what it used is remembered. */
export interface ContainerScope {
  open(request: ContainerRequest): Promise<ContainerHandle>;
  /** Containers this request used, for the Messages result's `container` field. */
  used(): ReadonlyArray<{ id: string; expiresAt: number }>;
}

/** The gateway's containers (`deps.containers`). */
export interface ContainerService {
  forRequest(owner: ContainerOwner): ContainerScope;
}
