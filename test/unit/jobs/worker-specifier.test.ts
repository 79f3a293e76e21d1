import { expect, test } from "bun:test";
import { workerSpecifier } from "../../../core/jobs/worker-specifier.ts";

const WORKER = "core/jobs/documents/worker";

test("from source the worker is the .ts file under the checkout; in a compiled binary, under its build-root path", () => {
  expect(workerSpecifier(WORKER, "/srv/app/server.ts", "file:///srv/app/core/jobs/worker-specifier.ts")).toBe("file:///srv/app/core/jobs/documents/worker.ts");
  expect(workerSpecifier(WORKER, "/$bunfs/root/gateway", "file:///$bunfs/root/gateway")).toBe("/$bunfs/root/core/jobs/documents/worker.ts");
  // `npm start`'s bundle: the worker is its own entrypoint beside dist/server.js.
  expect(workerSpecifier(WORKER, "/srv/app/dist/server.js", "file:///srv/app/dist/server.js")).toBe("/srv/app/dist/core/jobs/documents/worker.js");
});
