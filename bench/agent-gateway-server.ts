/**
 * The gateway of `bench/agent-loop.ts`: bench/gateway-server.ts unchanged (the default pipeline, SQLite accounting,
 * request logging at `info`, bundled like `npm start`), plus one IPC message, `cpu`, answered with the process's own
 * CPU time so far in µs (getrusage: every thread, microsecond resolution; /proc's 10 ms ticks are too coarse to time
 * one request).
 */
import "./gateway-server.ts";

process.on("message", (message: unknown) => {
  if (message !== "cpu") return;
  const used = process.cpuUsage();
  process.send?.({ cpuUs: used.user + used.system });
});
