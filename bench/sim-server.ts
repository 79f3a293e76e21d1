/** The upstream of every target and target (1) itself: the standalone simulator server, in its own process. */
import { startSimulatorServer } from "../providers/simulator/server.ts";
import { announce } from "./child.ts";

const server = startSimulatorServer({ port: 0, hostname: "127.0.0.1" });
process.on("SIGTERM", () => void server.stop().then(() => process.exit(0)));
announce(server.port, { url: server.url });
