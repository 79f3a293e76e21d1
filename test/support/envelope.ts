/** Asserting the error envelope `{error: {code, message, metadata?}}` of a reply, shared by the boundary suites. */
import { expect } from "bun:test";
import { POSTGRES_URL } from "./pg-schema.ts";

export type Envelope = {
  error: { code: number; message: string; metadata: { error_type: string; param?: string; errors?: Array<{ index: number; message: string }> } };
};

/** Status and `error.code` are `status`; when given, `metadata.param` names the offending field. */
export async function expectError(res: Response, status: number, param?: string): Promise<Envelope> {
  const body = (await res.json()) as Envelope;
  expect({ status: res.status, code: body.error?.code }).toEqual({ status, code: status });
  expect(typeof body.error.message).toBe("string");
  if (param !== undefined) expect(body.error.metadata.param).toBe(param);
  return body;
}

/** The store backends a suite runs on: SQLite always, Postgres when DATABASE_URL=postgres://… is set. */
export const BACKENDS: ReadonlyArray<readonly [name: "sqlite" | "postgres", enabled: boolean]> = [
  ["sqlite", true],
  ["postgres", POSTGRES_URL !== undefined],
];
