/** Starts a real gateway on a loopback port with embedded defaults (SQLite in memory, memory kv) for tests. */
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { API_PREFIX } from "../../core/http/api-prefix.ts";
import { createGateway, type Gateway, type GatewayOverrides } from "../../core/bootstrap.ts";
import { buildConfig } from "../../core/config/load.ts";
import { serveGateway } from "../../core/serve.ts";
import type { ConfigFile } from "../../core/config/file-schema.ts";
import type { GatewayConfig } from "../../core/config/types.ts";

export const ADMIN_KEY = "test-admin-key-0123456789";

export interface TestGateway {
  gateway: Gateway;
  /** `http://127.0.0.1:PORT/api/v1` */
  baseUrl: string;
  origin: string;
  /** An inference key created through `POST /keys`. */
  inferenceKey: string;
  inferenceKeyHash: string;
  /** Request against the running server with a key (inference key unless given). */
  request(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<Response>;
  close(): Promise<void>;
}

export interface TestGatewayOptions {
  file?: ConfigFile;
  env?: Record<string, string | undefined>;
  overrides?: GatewayOverrides;
  configure?: (config: GatewayConfig) => void;
}

export async function startTestGateway(options: TestGatewayOptions = {}): Promise<TestGateway> {
  const config = buildConfig(options.file ?? {}, { DATABASE_URL: "sqlite://:memory:", GATEWAY_ADMIN_KEY: ADMIN_KEY, LOG_LEVEL: "silent", ...options.env }, process.cwd());
  // Containers go to a directory of this gateway's own (not ./data of the checkout), removed on close.
  const containersDir = options.file?.sandbox?.dir === undefined ? await mkdtemp(join(tmpdir(), "gateway-containers-")) : undefined;
  if (containersDir !== undefined && config.sandbox) config.sandbox = { ...config.sandbox, dir: containersDir };
  options.configure?.(config);
  const gateway = await createGateway(config, { logger: pino({ level: "silent" }), ...options.overrides });
  // Served exactly like production (body-size cap, idle timeout), on a free loopback port.
  const server = serveGateway({ ...config, host: "127.0.0.1", port: 0 }, gateway);
  const origin = `http://127.0.0.1:${server.port}`;
  const baseUrl = origin + API_PREFIX;
  const request: TestGateway["request"] = (path, init = {}) => {
    const headers = new Headers(init.headers);
    const key = init.key === undefined ? created.key : init.key;
    if (key !== null && !headers.has("authorization")) headers.set("authorization", `Bearer ${key}`);
    let body = init.body;
    if (init.json !== undefined) {
      headers.set("content-type", "application/json");
      body = JSON.stringify(init.json);
    }
    return fetch(baseUrl + path, { ...init, headers, body: body ?? null });
  };
  const createdResponse = await fetch(`${baseUrl}/keys`, {
    method: "POST",
    headers: { authorization: `Bearer ${ADMIN_KEY}`, "content-type": "application/json" },
    body: JSON.stringify({ name: "test inference key" }),
  });
  const created = (await createdResponse.json()) as { key: string; data: { hash: string } };
  return {
    gateway,
    baseUrl,
    origin,
    inferenceKey: created.key,
    inferenceKeyHash: created.data.hash,
    request,
    async close() {
      await server.stop(true);
      await gateway.close();
      if (containersDir !== undefined) await rm(containersDir, { recursive: true, force: true });
    },
  };
}
