/**
 * The admin web page (README "Admin page"): `admin/index.html` and what it imports (plain TypeScript, CSS, uPlot),
 * bundled by Bun — at build time for `npm start` and the `bun build --compile` binary, which then carries it (no
 * network, no build step at run time), and on the first request to `/admin` for `bun server.ts`. Every file of the
 * page is answered here, with the security headers below: Bun's own HTML-import route cannot add headers.
 */
import { basename, resolve } from "node:path";
import admin from "../admin/index.html";
import { errors } from "./errors.ts";
import { envelopeOf, errorResponse } from "./http/envelope.ts";

/**
 * The page loads its one script and one stylesheet from this origin and calls only the API beside it; uPlot draws
 * on a canvas and styles through the CSSOM, which `style-src 'self'` allows. Nothing inline, nothing framed.
 */
export const ADMIN_PAGE_HEADERS: Readonly<Record<string, string>> = {
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  "x-frame-options": "DENY",
  "x-content-type-options": "nosniff",
  "referrer-policy": "no-referrer",
};

type Handler = (request: Bun.BunRequest) => Response | Promise<Response>;
type Routes = Bun.Serve.Routes<undefined, string>;

interface BuiltFile {
  path: string;
  loader: string;
  headers?: Record<string, string>;
}

interface PageFile {
  body: Blob;
  type: string;
  html: boolean;
}

/** Where a source run's page files are served (the build writes these URLs into the HTML it returns). */
const SOURCE_ASSETS = "/admin/assets/";

function answer(file: PageFile): Response {
  return new Response(file.body, {
    headers: {
      ...ADMIN_PAGE_HEADERS,
      "content-type": file.type,
      // The HTML names its files by content hash: the HTML is checked again on every visit, its files never change.
      "cache-control": file.html ? "no-cache" : "public, max-age=31536000, immutable",
    },
  });
}

const both = (handler: Handler) => ({ GET: handler, HEAD: handler });

/**
 * `/admin` and `/admin/` (the page routes between its views with the URL's fragment, so no deeper path exists) and
 * the page's files. Built ahead (bundle on disk, compiled binary), the import lists the files: served from where they
 * are (relative to the bundle's folder, or inside the binary), each at the root path the HTML names (`/chunk-*.js`,
 * `/index-*.css`). From source, the import lists nothing: the page is bundled in memory on its first request.
 */
export function adminRoutes(): Routes {
  const files = (admin as unknown as { files?: BuiltFile[] }).files;
  return files && files.length > 0 ? builtRoutes(files) : sourceRoutes();
}

function builtRoutes(files: BuiltFile[]): Routes {
  const routes: Routes = {};
  for (const file of files) {
    const html = file.loader === "html";
    const page: PageFile = { body: Bun.file(resolve(import.meta.dir, file.path)), type: file.headers?.["content-type"] ?? (html ? "text/html;charset=utf-8" : ""), html };
    const handler = both(() => answer(page));
    if (html) routes["/admin"] = routes["/admin/"] = handler;
    else routes[`/${basename(file.path)}`] = handler;
  }
  return routes;
}

function sourceRoutes(): Routes {
  let built: Promise<Map<string, PageFile>> | undefined;
  const build = () =>
    (built ??= bundle().catch((error: unknown) => {
      // A failed build is retried by the next request (the error is the front door's to log and answer).
      built = undefined;
      throw error;
    }));
  const page = both(async () => answer((await build()).get("/admin")!));
  return {
    "/admin": page,
    "/admin/": page,
    [`${SOURCE_ASSETS}*`]: both(async (request) => {
      const file = (await build()).get(new URL(request.url).pathname);
      if (file) return answer(file);
      const missing = errors.notFound("No such file of the admin page");
      return errorResponse(missing, envelopeOf(missing));
    }),
  };
}

async function bundle(): Promise<Map<string, PageFile>> {
  const output = await Bun.build({ entrypoints: [resolve(import.meta.dir, "../admin/index.html")], minify: true, publicPath: SOURCE_ASSETS });
  if (!output.success) throw new AggregateError(output.logs, "the admin page did not build");
  const files = new Map<string, PageFile>();
  for (const artifact of output.outputs) {
    const html = artifact.path.endsWith(".html");
    files.set(html ? "/admin" : SOURCE_ASSETS + basename(artifact.path), { body: artifact, type: artifact.type, html });
  }
  return files;
}
