/**
 * A ContainerHandle for tool tests: files in a Map (with the contract's path refusals), commands answered by a script
 * the test supplies, and a record of what the tool asked of `ctx.container()` and of `exec`.
 */
import { ContainerError, type ContainerHandle, type ContainerRequest, type ExecOptions, type ExecResult } from "../../../../core/containers/contract.ts";
import type { ToolRunContext } from "../../../../core/registry/tool.ts";
import { toolRunContext } from "../run-context.ts";

export type ExecScript = (command: string, options: ExecOptions) => Partial<ExecResult> | Promise<Partial<ExecResult>>;

export interface FakeContainer extends ContainerHandle {
  readonly files: Map<string, string>;
  readonly execs: Array<{ command: string; options: ExecOptions }>;
  /** Every request the tool made of `ctx.container()`. */
  readonly requests: ContainerRequest[];
  script: ExecScript;
  /** Makes the next write fail (a quota, say) with this message. */
  failWrites?: string;
}

function checkedPath(path: string): string {
  if (path.startsWith("/") || path.split("/").includes("..")) throw new ContainerError(`path "${path}" leaves the container`);
  return path;
}

export function fakeContainer(initial: Record<string, string> = {}, id = "ctr_test123"): FakeContainer {
  const files = new Map(Object.entries(initial));
  const container: FakeContainer = {
    id,
    expiresAt: 1_900_000_000,
    files,
    execs: [],
    requests: [],
    script: () => ({}),
    async exec(command, options) {
      container.execs.push({ command, options });
      const result = await container.script(command, options);
      return { stdout: "", stderr: "", exitCode: 0, timedOut: false, truncated: false, ...result };
    },
    async readFile(path) {
      const content = files.get(checkedPath(path));
      if (content === undefined) throw new ContainerError(`no such file: ${path}`);
      return content;
    },
    async writeFile(path, content) {
      if (container.failWrites !== undefined) throw new ContainerError(container.failWrites);
      files.set(checkedPath(path), content);
    },
    async deleteFile(path) {
      if (!files.delete(checkedPath(path))) throw new ContainerError(`no such file: ${path}`);
    },
    async renameFile(from, to) {
      const content = files.get(checkedPath(from));
      if (content === undefined) throw new ContainerError(`no such file: ${from}`);
      files.delete(from);
      files.set(checkedPath(to), content);
    },
    async listFiles() {
      return [...files].map(([path, content]) => ({ path, bytes: Buffer.byteLength(content), createdAt: 1_700_000_000 }));
    },
  };
  return container;
}

/** A run context whose `container()` records the request and hands out `container`. */
export function containerContext(container: FakeContainer, parameters: Record<string, unknown> = {}, overrides: Partial<ToolRunContext> = {}): ToolRunContext {
  return toolRunContext({
    parameters,
    container: async (request) => {
      container.requests.push(request);
      return container;
    },
    ...overrides,
  });
}
