/** The config file's `sandbox` section (README "Containers"): defaults, every key, and refused values naming the field. */
import { expect, test } from "bun:test";
import { buildConfig, ConfigError, validateConfigFile } from "../../../core/config/load.ts";

const build = (raw: unknown) => buildConfig(validateConfigFile(raw), {}, "/cfg");

test("defaults: just-bash, ./data/containers, 100 MB and 10,000 files per container, scan bound 1,000, a 30 s queue wait, no fallback", () => {
  expect(build({}).sandbox).toEqual({
    backend: "just-bash",
    dir: "./data/containers",
    maxBytes: 100 * 1024 * 1024,
    maxFiles: 10_000,
    sweepIntervalMs: 60_000,
    workers: 4,
    listScanBound: 1_000,
    queueTimeoutMs: 30_000,
    allowFallback: false,
    bwrapPath: "bwrap",
    maxProcesses: 256,
    firstUid: 2_000_000_000,
  });
});

test("every key is read", () => {
  const sandbox = {
    backend: "bwrap",
    dir: "/srv/containers",
    max_bytes: 1_000,
    max_files: 20,
    sweep_interval_ms: 5_000,
    workers: 2,
    list_scan_bound: 7,
    queue_timeout_ms: 250,
    allow_fallback: true,
    bwrap_path: "/opt/bin/bwrap",
    max_processes: 64,
    first_uid: 300_000,
  };
  expect(build({ sandbox }).sandbox).toEqual({
    backend: "bwrap",
    dir: "/srv/containers",
    maxBytes: 1_000,
    maxFiles: 20,
    sweepIntervalMs: 5_000,
    workers: 2,
    listScanBound: 7,
    queueTimeoutMs: 250,
    allowFallback: true,
    bwrapPath: "/opt/bin/bwrap",
    maxProcesses: 64,
    firstUid: 300_000,
  });
});

test("refused values name the field", () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ backend: "docker" }, "sandbox.backend"],
    [{ max_bytes: 0 }, "sandbox.max_bytes"],
    [{ max_files: 1.5 }, "sandbox.max_files"],
    [{ sweep_interval_ms: 999 }, "sandbox.sweep_interval_ms"],
    [{ list_scan_bound: 0 }, "sandbox.list_scan_bound"],
    [{ dir: "" }, "sandbox.dir"],
    [{ queue_timeout_ms: 0 }, "sandbox.queue_timeout_ms"],
    [{ allow_fallback: "yes" }, "sandbox.allow_fallback"],
    [{ bwrap_path: "" }, "sandbox.bwrap_path"],
    [{ max_processes: 2 }, "sandbox.max_processes"],
    [{ first_uid: 0 }, "sandbox.first_uid"],
    [{ unknown_key: 1 }, "sandbox"],
  ];
  for (const [sandbox, field] of cases) {
    expect(() => build({ sandbox })).toThrow(ConfigError);
    expect(() => build({ sandbox })).toThrow(`"${field}`);
  }
});
