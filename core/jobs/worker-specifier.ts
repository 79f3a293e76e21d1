/**
 * Where a worker's code is, given its path from the build root without extension (`core/jobs/documents/worker`).
 * Built, a worker is an entrypoint of its own (package.json `start` and `build:binary` name it) under that path, and
 * `import.meta.url` is the bundle's or the binary's, not this file's: inside a `--compile` binary it is embedded as
 * the `.ts` path, in `npm start`'s bundle it is a `.js` file beside `dist/server.js`. From source it is the `.ts` file
 * under the checkout, two levels above this one.
 */
import { dirname, join } from "node:path";

export function workerSpecifier(fromBuildRoot: string, main: string = Bun.main, here: string = import.meta.url): string {
  const compiled = main.includes("/$bunfs/") || main.includes("~BUN");
  if (compiled) return join(dirname(main), `${fromBuildRoot}.ts`);
  if (here.endsWith(".ts")) return new URL(`../../${fromBuildRoot}.ts`, here).href;
  return join(dirname(main), `${fromBuildRoot}.js`);
}
