/** The sandbox backend the configuration asks for (the interface is ./backend.ts). */
import type { Logger } from "pino";
import type { SandboxBackend } from "./backend.ts";
import { BwrapBackend } from "./bwrap/backend.ts";
import { probeBwrap } from "./bwrap/probe.ts";
import { JustBashBackend } from "./just-bash/backend.ts";
import { resolveSandboxSettings, type SandboxSettings } from "./settings.ts";

type SandboxLogger = Pick<Logger, "info" | "warn">;

/**
 * The configured backend. `bwrap` is probed first (a sandbox that runs `true`); when the host forbids it (no
 * bubblewrap, no user namespaces) the gateway falls back to just-bash and says so in one log line.
 */
export async function createSandboxBackend(settings: SandboxSettings, logger: SandboxLogger): Promise<SandboxBackend> {
  const resolved = resolveSandboxSettings(settings);
  if (resolved.backend === "bwrap") {
    const probe = await probeBwrap(resolved);
    if (probe.ok) {
      logger.info({ sandbox: "bwrap", uid: probe.plan.hostUid }, "sandbox backend ready");
      return new BwrapBackend(resolved, probe.plan);
    }
    logger.warn({ sandbox: "just-bash", reason: probe.reason }, "bwrap sandbox unusable on this host; falling back to just-bash");
  }
  return new JustBashBackend(resolved);
}
