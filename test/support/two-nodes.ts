/**
 * Two gateways sharing one Postgres (a temporary schema of their own) and one Redis, as two processes of a
 * multi-node deployment would. The suites that use it run when DATABASE_URL (postgres) and REDIS_URL are set, as in
 * CI, and print why they skip otherwise.
 */
import { afterAll, beforeAll } from "bun:test";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "./gateway.ts";
import { createTempSchema, POSTGRES_URL, type TempSchema } from "./pg-schema.ts";

const REDIS_URL = process.env.REDIS_URL;

/** Whether both shared stores are configured; prints `name`'s skip reason when not. */
export function sharedStoresFor(name: string): boolean {
  const enabled = POSTGRES_URL !== undefined && REDIS_URL !== undefined;
  if (!enabled) console.log(`${name}: skipped (set DATABASE_URL=postgres://… and REDIS_URL=redis://… to run)`);
  return enabled;
}

/**
 * Registers, in the calling `describe`, the start of both gateways (node 0's options, then node 1's: each given the
 * shared stores' environment) and their stop; `started` receives them once both run.
 */
export function twoNodes(started: (a: TestGateway, b: TestGateway) => void, options: (node: 0 | 1) => TestGatewayOptions = () => ({})): void {
  let schema: TempSchema | undefined;
  const gateways: TestGateway[] = [];
  beforeAll(async () => {
    schema = await createTempSchema(POSTGRES_URL!);
    for (const node of [0, 1] as const) {
      const own = options(node);
      gateways.push(await startTestGateway({ ...own, env: { ...own.env, DATABASE_URL: schema.url, REDIS_URL } }));
    }
    started(gateways[0]!, gateways[1]!);
  });
  afterAll(async () => {
    for (const gateway of gateways) await gateway.close();
    await schema?.drop();
  });
}
