/** File-system failures of a tool's operation, as the model should see them (a ContainerError, never a crash). */
import { ContainerError } from "./contract.ts";
import { storeFailure } from "./store-unavailable.ts";

/** Failures the model caused and can fix (a missing file, a full disk); anything else is the store's fault. */
const MODEL_FIXABLE: Record<string, string> = {
  ENOENT: "no such file or directory",
  ENOTDIR: "not a directory",
  EISDIR: "is a directory",
  EEXIST: "already exists",
  ENOTEMPTY: "directory not empty",
  EINVAL: "invalid operation",
  ENAMETOOLONG: "name too long",
  ENOSPC: "no space left",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
};

export function toContainerError(error: unknown, operation: string): never {
  if (error instanceof ContainerError) throw error;
  const reason = MODEL_FIXABLE[(error as NodeJS.ErrnoException | null)?.code ?? ""];
  if (reason !== undefined) throw new ContainerError(`${operation}: ${reason}`);
  return storeFailure(error);
}
