/**
 * Where a headless Chromium is, for the browser tests: `CHROMIUM_PATH`, else Debian's `chromium-headless-shell`
 * (`apt-get install -y chromium-headless-shell`; `.ci/run` installs it). Undefined when there is none: the tests
 * then skip with a printed reason instead of failing on a newcomer's machine.
 */
import { existsSync } from "node:fs";

const CANDIDATES = ["/usr/lib/chromium/chromium-headless-shell", "/usr/bin/chromium-headless-shell", "/usr/lib/chromium/chromium", "/usr/bin/chromium"];

export function chromiumPath(): string | undefined {
  const fromEnv = process.env.CHROMIUM_PATH;
  if (fromEnv) return existsSync(fromEnv) ? fromEnv : undefined;
  return CANDIDATES.find((path) => existsSync(path));
}
