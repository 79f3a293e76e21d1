/**
 * Every built-in plugin and server tool could have been written by a third party: from the gateway's own code they
 * import the public SDK entry (`core/sdk/index.ts`, which `inference-gateway/sdk` resolves to) and nothing else.
 */
import { expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";

const root = resolve(import.meta.dir, "../../..");

test("built-in plugins and tools reach the gateway only through the SDK entry", () => {
  const offending: string[] = [];
  let files = 0;
  for (const dir of ["plugins", "tools"]) {
    for (const file of new Glob("**/*.ts").scanSync(join(root, dir))) {
      files++;
      const source = readFileSync(join(root, dir, file), "utf8");
      for (const [, specifier] of source.matchAll(/from\s+"([^"]+)"/g)) {
        if (/(^|\/)core\//.test(specifier!) && !specifier!.endsWith("core/sdk/index.ts")) offending.push(`${dir}/${file}: ${specifier}`);
      }
    }
  }
  expect(files).toBeGreaterThan(20);
  expect(offending).toEqual([]);
});
