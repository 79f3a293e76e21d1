/** Container file ids: `cfile_` + base64url of the path, e.g. `cfile_b3V0L3JlcG9ydC5jc3Y` = "out/report.csv". */

const PREFIX = "cfile_";
const BASE64URL = /^[A-Za-z0-9_-]+$/;
const utf8 = new TextDecoder("utf-8", { fatal: true });

export function fileIdOf(path: string): string {
  return PREFIX + Buffer.from(path, "utf8").toString("base64url");
}

/** The path an id names; undefined unless it is exactly the id `fileIdOf` gives for that path (one id per path). */
export function pathOfFileId(id: string): string | undefined {
  if (!id.startsWith(PREFIX)) return undefined;
  const encoded = id.slice(PREFIX.length);
  if (!BASE64URL.test(encoded)) return undefined;
  const bytes = Buffer.from(encoded, "base64url");
  if (bytes.toString("base64url") !== encoded) return undefined;
  try {
    return utf8.decode(bytes);
  } catch {
    return undefined;
  }
}
