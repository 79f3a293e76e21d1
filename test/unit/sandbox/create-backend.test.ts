import { expect, test } from "bun:test";
import { createSandboxBackend } from "../../../core/sandbox/create-backend.ts";

test("bwrap that cannot run falls back to just-bash, with one log line saying why", async () => {
  const lines: Array<{ level: string; fields: Record<string, unknown>; message: string }> = [];
  const logger = {
    info: (fields: Record<string, unknown>, message: string) => lines.push({ level: "info", fields, message }),
    warn: (fields: Record<string, unknown>, message: string) => lines.push({ level: "warn", fields, message }),
  };
  const backend = await createSandboxBackend({ backend: "bwrap", bwrapPath: "/nonexistent/bwrap" }, logger as never);
  expect(backend.name).toBe("just-bash");
  expect(lines).toHaveLength(1);
  expect(lines[0]).toMatchObject({ level: "warn", fields: { sandbox: "just-bash" } });
  expect(String(lines[0]!.fields.reason)).toContain("/nonexistent/bwrap");
  await backend.close();
});

test("just-bash is the default and needs no probe", async () => {
  const lines: unknown[] = [];
  const backend = await createSandboxBackend({}, { info: () => lines.push(1), warn: () => lines.push(1) } as never);
  expect(backend.name).toBe("just-bash");
  expect(lines).toEqual([]);
  await backend.close();
});
