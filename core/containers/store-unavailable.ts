/**
 * The container directory cannot be used (unmounted share, I/O error, permissions). A ContainerError, so a tool
 * call sees it as an error result; the files API answers 503 for it.
 */
import { ContainerError } from "./contract.ts";

export class SandboxStoreUnavailable extends ContainerError {
  constructor(cause: unknown) {
    super("the container store is unavailable right now; try again later", { cause });
  }
}

/** Error codes that mean "this path does not exist" rather than "the store is broken". */
const MISSING = new Set(["ENOENT", "ENOTDIR"]);

export function isMissing(error: unknown): boolean {
  return MISSING.has((error as NodeJS.ErrnoException | null)?.code ?? "");
}

/** Rethrows a file-system failure other than a missing path as SandboxStoreUnavailable. */
export function storeFailure(error: unknown): never {
  if (error instanceof ContainerError) throw error;
  throw new SandboxStoreUnavailable(error);
}
