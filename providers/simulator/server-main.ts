/**
 * CLI entry of the HTTP simulator: `bun providers/simulator/server-main.ts --port 9001 [--hostname 127.0.0.1]
 * [--latency MS] [--delay MS] [--tokens N] [--chunk N]`. Prints the base URL, stops on SIGINT / SIGTERM.
 */
import { Value } from "@sinclair/typebox/value";
import { simulatorOptionsSchema, type SimulatorOptions } from "./options.ts";
import { startSimulatorServer } from "./server.ts";

const FLAGS: Record<string, keyof SimulatorOptions> = {
  "--latency": "latency_ms",
  "--delay": "chunk_delay_ms",
  "--tokens": "output_tokens",
  "--chunk": "tokens_per_chunk",
  "--fail-status": "fail_status",
};

/** Parses argv into server options; exits with a usage line on anything unknown. */
function parseArgs(argv: string[]): { port: number; hostname: string; defaults: SimulatorOptions } {
  let port = 9001;
  let hostname = "127.0.0.1";
  const defaults: Record<string, number> = {};
  for (let i = 0; i < argv.length; i += 2) {
    const flag = argv[i] ?? "";
    const value = argv[i + 1];
    if (value === undefined) usage(`missing value for ${flag}`);
    if (flag === "--port") port = Number(value);
    else if (flag === "--hostname") hostname = value;
    else if (flag in FLAGS) defaults[FLAGS[flag] ?? ""] = Number(value);
    else usage(`unknown flag ${flag}`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) usage("--port must be 0-65535");
  if (!Value.Check(simulatorOptionsSchema, defaults)) usage("option values must be non-negative integers");
  return { port, hostname, defaults: defaults as SimulatorOptions };
}

function usage(problem: string): never {
  console.error(`${problem}\nusage: bun providers/simulator/server-main.ts [--port 9001] [--hostname 127.0.0.1] [--latency MS] [--delay MS] [--tokens N] [--chunk N] [--fail-status S]`);
  process.exit(2);
}

const { port, hostname, defaults } = parseArgs(process.argv.slice(2));
const server = startSimulatorServer({ port, hostname, defaults });
console.log(`provider simulator listening on ${server.url}`);
for (const signal of ["SIGINT", "SIGTERM"] as const) {
  process.on(signal, () => {
    void server.stop().then(() => process.exit(0));
  });
}
