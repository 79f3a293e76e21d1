/** One error line per interval per message, with the count skipped; an error given as a function is made only when written. */
import { describe, expect, test } from "bun:test";
import pino from "pino";
import { throttledError } from "../../../core/util/throttled-log.ts";

function capture() {
  const lines: Array<Record<string, any>> = [];
  const logger = pino({ level: "error" }, { write: (line: string) => void lines.push(JSON.parse(line)) });
  return { logger, lines };
}

describe("throttledError", () => {
  test("writes the first error of a message, then at most one per interval with the count skipped", async () => {
    const { logger, lines } = capture();
    const log = throttledError(logger, 50);
    log(new Error("a"), "store down");
    log(new Error("b"), "store down");
    log(new Error("c"), "other");
    expect(lines.map((l) => [l.msg, l.err.message])).toEqual([["store down", "a"], ["other", "c"]]);
    await Bun.sleep(70);
    log(new Error("d"), "store down");
    expect(lines.at(-1)).toMatchObject({ msg: "store down", skipped: 1, err: { message: "d" } });
  });

  test("an error given as a function is built only for the lines written", () => {
    const { logger, lines } = capture();
    const log = throttledError(logger, 60_000);
    let built = 0;
    for (let i = 0; i < 1_000; i++) log(() => new Error(`drop ${++built}`), "spans dropped");
    expect(built).toBe(1);
    expect(lines).toHaveLength(1);
    expect(lines[0]!.err.message).toBe("drop 1");
  });
});
