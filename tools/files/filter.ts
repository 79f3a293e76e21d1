/**
 * `filename_filter` of the files tool's `list`: a glob when it has `*`, `?` or `[…]` (`*` stays within one path
 * segment, `**` crosses them), else a case-insensitive substring of the path. A glob without `/` is matched against
 * the file's own name, so `*.py` finds `src/app.py`; one with `/` against the whole path. Matched here rather than by the
 * container service so the model gets the same rule whatever backend holds the files.
 */

const GLOB_CHARS = /[*?[]/;

function globRegex(pattern: string): RegExp {
  let source = "";
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i]!;
    if (char === "*") {
      if (pattern[i + 1] === "*") {
        // `**/` also matches no directory at all (`**/a.txt` finds `a.txt`).
        source += pattern[i + 2] === "/" ? "(?:.*/)?" : ".*";
        i += pattern[i + 2] === "/" ? 2 : 1;
      } else source += "[^/]*";
    } else if (char === "?") source += "[^/]";
    else if (char === "[") {
      const end = pattern.indexOf("]", i + 1);
      if (end === -1) source += "\\[";
      else {
        const body = pattern.slice(i + 1, end).replace(/^!/, "^").replace(/\\/g, "\\\\");
        source += `[${body}]`;
        i = end;
      }
    } else source += char.replace(/[.+^${}()|\\\]]/g, "\\$&");
  }
  return new RegExp(`^${source}$`);
}

/** A predicate on container paths for `filter`; everything passes when it is empty. */
export function pathFilter(filter: string | undefined): (path: string) => boolean {
  const pattern = filter?.trim() ?? "";
  if (pattern === "") return () => true;
  const byName = !pattern.includes("/");
  const subject = (path: string) => (byName ? path.slice(path.lastIndexOf("/") + 1) : path);
  if (!GLOB_CHARS.test(pattern)) {
    const needle = pattern.toLowerCase();
    return (path) => path.toLowerCase().includes(needle);
  }
  let regex: RegExp;
  try {
    regex = globRegex(pattern);
  } catch {
    throw new Error(`filename_filter "${filter}" is not a valid pattern`);
  }
  return (path) => regex.test(subject(path));
}
