/**
 * File names as the model writes them → container paths (core/containers/contract.ts: relative to the container
 * root, `/`-separated, no leading slash). The container service refuses escapes on its own; this check runs first so
 * the model gets a message about its own argument rather than a sandbox refusal, and so `./a.txt` and `a.txt` are
 * the same file.
 */

/** The normalized path, or an Error saying what is wrong with `name` (thrown: it becomes the model's error result). */
export function containerPath(name: string, field = "filename"): string {
  const trimmed = name.trim();
  if (trimmed === "") throw new Error(`${field} is empty`);
  if (trimmed.startsWith("/") || /^[a-zA-Z]:[\\/]/.test(trimmed)) {
    throw new Error(`${field} "${name}" is absolute; give a path relative to the container's working directory`);
  }
  if (trimmed.includes("\0")) throw new Error(`${field} contains a NUL character`);
  const segments = trimmed.split("/").filter((segment) => segment !== "" && segment !== ".");
  if (segments.includes("..")) throw new Error(`${field} "${name}" leaves the container (..)`);
  if (segments.length === 0 || trimmed.endsWith("/")) throw new Error(`${field} "${name}" names a directory, not a file`);
  return segments.join("/");
}
