/** A container service over a fresh temporary directory, a manual clock and the host-bash test backend. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { DirectoryContainerService } from "../../../core/containers/service.ts";
import { hostBashSandbox } from "../../support/host-bash-sandbox.ts";

export interface ServiceFixture {
  service: DirectoryContainerService;
  dir: string;
  clock: { now(): number; advance(ms: number): void };
  close(): Promise<void>;
}

export async function serviceFixture(settings: { maxBytes?: number; maxFiles?: number; listScanBound?: number } = {}): Promise<ServiceFixture> {
  const dir = await mkdtemp(join(tmpdir(), "containers-unit-"));
  let now = 1_800_000_000_000;
  const clock = { now: () => now, advance: (ms: number) => void (now += ms) };
  const service = new DirectoryContainerService({
    settings: { dir, maxBytes: settings.maxBytes ?? 1_000_000, maxFiles: settings.maxFiles ?? 1_000, listScanBound: settings.listScanBound ?? 1_000, sweepIntervalMs: 3_600_000 },
    backend: hostBashSandbox(),
    clock,
    logger: pino({ level: "silent" }),
  });
  await service.start();
  return {
    service,
    dir,
    clock,
    async close() {
      service.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
