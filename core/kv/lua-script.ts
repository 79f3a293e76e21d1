/** A Lua script run by SHA (EVALSHA), loaded on demand: the script body crosses the wire once per server. */
import { createHash } from "node:crypto";
import type Redis from "ioredis";

/** One server-side script. */
export class LuaScript {
  /** SHA-1 of the source, as Redis names the script. */
  readonly sha: string;

  constructor(readonly source: string) {
    this.sha = createHash("sha1").update(source).digest("hex");
  }

  /** Runs the script; falls back to EVAL (which also caches it) when the server does not know it yet. */
  async run(client: Redis, keys: readonly string[], args: ReadonlyArray<string | number>): Promise<unknown> {
    try {
      return await client.evalsha(this.sha, keys.length, ...keys, ...args);
    } catch (error) {
      // NOSCRIPT after a server restart, a SCRIPT FLUSH or on a fresh replica.
      if (error instanceof Error && error.message.startsWith("NOSCRIPT")) {
        return client.eval(this.source, keys.length, ...keys, ...args);
      }
      throw error;
    }
  }
}
