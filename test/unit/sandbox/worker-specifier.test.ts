import { expect, test } from "bun:test";
import { workerSpecifier } from "../../../core/sandbox/just-bash/backend.ts";

test("from source the worker sits next to the backend; in a compiled binary, under its build-root path", () => {
  expect(workerSpecifier("/srv/app/server.ts", "file:///srv/app/core/sandbox/just-bash/backend.ts")).toBe("file:///srv/app/core/sandbox/just-bash/just-bash-worker.ts");
  expect(workerSpecifier("/$bunfs/root/gateway", "file:///$bunfs/root/gateway")).toBe("/$bunfs/root/core/sandbox/just-bash/just-bash-worker.ts");
  // `npm start`'s bundle: the worker is its own entrypoint beside dist/server.js.
  expect(workerSpecifier("/srv/app/dist/server.js", "file:///srv/app/dist/server.js")).toBe("/srv/app/dist/core/sandbox/just-bash/just-bash-worker.js");
});
