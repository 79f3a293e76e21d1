/**
 * The admin web page (README "Admin page"): `admin/index.html` and what it imports (plain TypeScript, CSS, uPlot),
 * bundled by Bun's HTML import — at start-up for `bun server.ts`, at build time for `npm start` and the
 * `bun build --compile` binary, which then carries it (no network, no build step at run time). Served by
 * `Bun.serve` routes beside the app; the page's scripts and styles are served at the root (`/chunk-*.js`,
 * `/index-*.css`).
 */
import { resolve } from "node:path";
import admin from "../admin/index.html";

type Routes = Record<string, typeof admin | ReturnType<typeof Bun.file>>;

interface BuiltFile {
  path: string;
  loader: string;
}

/**
 * `/admin` and `/admin/` (the page routes between its views with the URL's fragment, so no deeper path exists).
 * A bundle on disk (`npm start`, the bench) lists its files relative to its own folder, which Bun 1.4 resolves
 * against the working directory instead (`bun dist/server.js` from the checkout fails to start): there the files
 * are routed by hand from the bundle's folder. Source runs and the compiled binary serve the import as it is.
 */
export function adminRoutes(): Routes {
  const files = (admin as unknown as { files?: BuiltFile[] }).files;
  const here = import.meta.dir;
  if (!files || here.startsWith("/$bunfs") || here.startsWith("B:/~BUN")) return { "/admin": admin, "/admin/": admin };
  const routes: Routes = {};
  for (const file of files) {
    const served = Bun.file(resolve(here, file.path));
    if (file.loader === "html") {
      routes["/admin"] = served;
      routes["/admin/"] = served;
    } else routes[`/${file.path.replace(/^(\.\/)+/, "")}`] = served;
  }
  return routes;
}
