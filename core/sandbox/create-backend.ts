/** The sandbox backend the configuration asks for (the interface is ./backend.ts). */
import type { Logger } from "pino";
import { ConfigError } from "../config/load.ts";
import type { SandboxBackend } from "./backend.ts";
import { BwrapBackend } from "./bwrap/backend.ts";
import { probeBwrap } from "./bwrap/probe.ts";
import { JustBashBackend } from "./just-bash/backend.ts";
import { resolveSandboxSettings, type SandboxSettings } from "./settings.ts";

type SandboxLogger = Pick<Logger, "info" | "warn">;

/**
 * The configured backend. `bwrap` is probed first (a sandbox that runs `true`); when the host forbids it (no
 * bubblewrap, no user namespaces, not root) start-up fails saying why: an operator who asked for OS isolation must
 * not silently get the simulated shell. With `allowFallback` the gateway runs just-bash instead, in one log line.
 */
export async function createSandboxBackend(settings: SandboxSettings, logger: SandboxLogger): Promise<SandboxBackend> {
  const resolved = resolveSandboxSettings(settings);
  if (resolved.backend === "bwrap") {
    const probe = await probeBwrap(resolved);
    if (probe.ok) {
      const backend = new BwrapBackend(resolved, probe.plan);
      logger.info({ sandbox: "bwrap", uids: `${backend.uids[0]}-${backend.uids.at(-1)}` }, "sandbox backend ready");
      return backend;
    }
    if (!resolved.allowFallback) {
      throw new ConfigError(
        `sandbox.backend is "bwrap" but bubblewrap cannot run on this host: ${probe.reason}. Fix the host, or set sandbox.allow_fallback to true to run commands in just-bash instead`,
      );
    }
    logger.warn({ sandbox: "just-bash", reason: probe.reason }, "bwrap sandbox unusable on this host; falling back to just-bash (sandbox.allow_fallback)");
  }
  return new JustBashBackend(resolved);
}
