/** A loopback TCP proxy the tests can cut and restore, to play "Redis went away" without touching Redis. */
import net from "node:net";

/** A running proxy; `stop` drops every connection, `start` listens again on the same port. */
export interface TcpProxy {
  port: number;
  stop(): Promise<void>;
  start(): Promise<void>;
}

/** Proxies a local port to `target` (host:port). */
export async function startTcpProxy(targetHost: string, targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let server: net.Server | undefined;
  let port = 0;

  async function start(): Promise<void> {
    const s = net.createServer((client) => {
      const upstream = net.connect(targetPort, targetHost);
      for (const socket of [client, upstream]) {
        sockets.add(socket);
        socket.on("close", () => sockets.delete(socket));
        socket.on("error", () => undefined);
      }
      client.pipe(upstream);
      upstream.pipe(client);
      client.on("close", () => upstream.destroy());
      upstream.on("close", () => client.destroy());
    });
    await new Promise<void>((resolve) => s.listen(port, "127.0.0.1", resolve));
    port = (s.address() as net.AddressInfo).port;
    server = s;
  }

  async function stop(): Promise<void> {
    const s = server;
    server = undefined;
    for (const socket of sockets) socket.destroy();
    if (s) await new Promise<void>((resolve) => s.close(() => resolve()));
  }

  await start();
  return {
    get port() {
      return port;
    },
    start,
    stop,
  };
}
