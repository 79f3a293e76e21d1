/**
 * Every built-in plugin, server tool and provider adapter could have been written by a third party: from the
 * gateway's own code they import the public SDK entries (`core/sdk/index.ts`, which `inference-gateway/sdk` resolves
 * to, and for adapters `core/sdk/provider.ts`, the provider kit) and nothing else; no adapter reaches into another
 * one; and core knows the adapters only through the static barrel that registers them.
 */
import { expect, test } from "bun:test";
import { Glob } from "bun";
import { readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";

const root = resolve(import.meta.dir, "../../..");

/** `[file, specifier]` of every import and re-export of the `.ts` files under `dir`. */
function importsUnder(dir: string): Array<[string, string]> {
  const out: Array<[string, string]> = [];
  for (const file of new Glob("**/*.ts").scanSync(join(root, dir))) {
    const source = readFileSync(join(root, dir, file), "utf8");
    for (const [, specifier] of source.matchAll(/from\s+"([^"]+)"/g)) out.push([`${dir}/${file}`, specifier!]);
  }
  return out;
}

test("built-in plugins and tools reach the gateway only through the SDK entry", () => {
  const offending: string[] = [];
  let files = 0;
  for (const dir of ["plugins", "tools"]) {
    const imports = importsUnder(dir);
    files += new Set(imports.map(([file]) => file)).size;
    for (const [file, specifier] of imports) {
      if (/(^|\/)core\//.test(specifier) && !specifier.endsWith("core/sdk/index.ts")) offending.push(`${file}: ${specifier}`);
    }
  }
  expect(files).toBeGreaterThan(20);
  expect(offending).toEqual([]);
});

test("built-in provider adapters reach the gateway only through the SDK entries, and never into another adapter", () => {
  const imports = importsUnder("providers");
  expect(new Set(imports.map(([file]) => file)).size).toBeGreaterThan(50);
  const offending: string[] = [];
  for (const [file, specifier] of imports) {
    if (/(^|\/)core\//.test(specifier) && !/core\/sdk\/(index|provider)\.ts$/.test(specifier)) offending.push(`${file}: ${specifier}`);
    // providers/<adapter>/… may import anything inside its own folder (subfolders included); a path leading out of
    // it to anything but the SDK entries is another unit's internals.
    const adapter = file.split("/")[1];
    const resolved = relative(root, resolve(root, dirname(file), specifier)).replaceAll("\\", "/");
    const inside = resolved.startsWith(`providers/${adapter}/`);
    if (specifier.startsWith(".") && !inside && !/^core\/sdk\/(index|provider)\.ts$/.test(resolved) && file !== "providers/index.ts") {
      offending.push(`${file}: ${specifier} (adapter ${adapter})`);
    }
  }
  expect(offending).toEqual([]);
});

test("core imports no provider adapter except through the barrel that registers the built-ins", () => {
  const offending = importsUnder("core")
    .filter(([, specifier]) => /(^|\/)providers\//.test(specifier) && !specifier.endsWith("providers/index.ts"))
    .map(([file, specifier]) => `${file}: ${specifier}`);
  expect(offending).toEqual([]);
});
