import { expect, test } from "bun:test";
import { ConfigError } from "../../../core/config/load.ts";
import { createSandboxBackend } from "../../../core/sandbox/create-backend.ts";

function recordingLogger() {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const logger = {
    info: (fields: Record<string, unknown>, message: string) => lines.push({ level: "info", fields, message }),
    warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: "warn", fields, message }),
  };
  return { lines, logger: logger as never };
}

test("bwrap that cannot run is a start-up error saying why, and how to allow the fallback", async () => {
  const { lines, logger } = recordingLogger();
  const created = createSandboxBackend({ backend: "bwrap", bwrapPath: "/nonexistent/bwrap" }, logger);
  await expect(created).rejects.toBeInstanceOf(ConfigError);
  await expect(created).rejects.toThrow('sandbox.backend is "bwrap" but bubblewrap cannot run on this host: /nonexistent/bwrap not found');
  await expect(created).rejects.toThrow("sandbox.allow_fallback");
  expect(lines).toEqual([]);
});

test("with allowFallback, bwrap that cannot run falls back to just-bash, with one log line saying why", async () => {
  const { lines, logger } = recordingLogger();
  const backend = await createSandboxBackend({ backend: "bwrap", bwrapPath: "/nonexistent/bwrap", allowFallback: true }, logger);
  expect(backend.name).toBe("just-bash");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: "warn", fields: { sandbox: "just-bash" } });
  expect(String(lines[0]!.fields.reason)).toContain("/nonexistent/bwrap");
  await backend.close();
});

test("just-bash is the default and needs no probe", async () => {
  const { lines, logger } = recordingLogger();
  const backend = await createSandboxBackend({}, logger);
  expect(backend.name).toBe("just-bash");
  expect(lines).toEqual([]);
  await backend.close();
});
