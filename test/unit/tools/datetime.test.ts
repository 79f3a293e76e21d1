/** service:datetime: ISO 8601 with milliseconds and the zone's offset (DST, half-hour zones), declaration checks. */
import { describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import datetime, { formatInZone } from "../../../tools/datetime.ts";
import { isGatewayError } from "../../../core/errors.ts";
import type { CatalogView } from "../../../core/routing/catalog-view.ts";
import type { ToolDeclaration, ToolRunContext } from "../../../core/registry/tool.ts";
import { fakeHelpers } from "../pipeline/helpers.ts";
import { toolRunContext } from "./run-context.ts";

const emptyCatalog: CatalogView = { models: () => [], model: () => undefined };

function ctxAt(iso: string, parameters: Record<string, unknown> = {}): ToolRunContext {
  return toolRunContext({ parameters, helpers: { ...fakeHelpers(), now: () => Date.parse(iso) }, catalog: emptyCatalog });
}

const run = (iso: string, args: Record<string, unknown> = {}, parameters: Record<string, unknown> = {}) =>
  datetime.run(args, ctxAt(iso, parameters)) as Promise<{ datetime: string; timezone: string }>;

describe("service:datetime run", () => {
  test("America/New_York in summer is UTC-4 (EDT), with milliseconds", async () => {
    expect(await run("2025-07-15T18:30:00.123Z", { timezone: "America/New_York" })).toEqual({
      datetime: "2025-07-15T14:30:00.123-04:00",
      timezone: "America/New_York",
    });
  });

  test("America/New_York in winter is UTC-5 (EST)", async () => {
    expect((await run("2025-01-15T18:30:00.000Z", { timezone: "America/New_York" })).datetime).toBe("2025-01-15T13:30:00.000-05:00");
  });

  test("Asia/Kolkata is UTC+5:30 and the date rolls over", async () => {
    expect((await run("2025-07-15T18:30:00.007Z", { timezone: "Asia/Kolkata" })).datetime).toBe("2025-07-16T00:00:00.007+05:30");
  });

  test("other non-whole-hour offsets: Kathmandu +5:45, St John's -2:30 in summer and -3:30 in winter", async () => {
    expect((await run("2025-07-15T00:00:00.000Z", { timezone: "Asia/Kathmandu" })).datetime).toBe("2025-07-15T05:45:00.000+05:45");
    expect((await run("2025-07-15T12:00:00.000Z", { timezone: "America/St_Johns" })).datetime).toBe("2025-07-15T09:30:00.000-02:30");
    expect((await run("2025-01-15T12:00:00.000Z", { timezone: "America/St_Johns" })).datetime).toBe("2025-01-15T08:30:00.000-03:30");
  });

  test("the offset changes exactly at the DST transitions", () => {
    // Spring forward 2025-03-09 02:00 EST -> 03:00 EDT; fall back 2025-11-02 02:00 EDT -> 01:00 EST.
    expect(formatInZone(Date.parse("2025-03-09T06:59:59.999Z"), "America/New_York")).toBe("2025-03-09T01:59:59.999-05:00");
    expect(formatInZone(Date.parse("2025-03-09T07:00:00.000Z"), "America/New_York")).toBe("2025-03-09T03:00:00.000-04:00");
    expect(formatInZone(Date.parse("2025-11-02T05:30:00.000Z"), "America/New_York")).toBe("2025-11-02T01:30:00.000-04:00");
    expect(formatInZone(Date.parse("2025-11-02T06:30:00.000Z"), "America/New_York")).toBe("2025-11-02T01:30:00.000-05:00");
  });

  test("every formatted time parses back to the same instant", () => {
    const zones = ["UTC", "Asia/Kolkata", "America/New_York", "Europe/London", "Australia/Lord_Howe", "Pacific/Chatham", "Pacific/Kiritimati", "America/Sao_Paulo"];
    for (let ms = Date.parse("2024-01-01T00:00:00.000Z"); ms < Date.parse("2026-01-01T00:00:00.000Z"); ms += 86_400_000 * 7 + 3_600_000 + 123) {
      for (const zone of zones) {
        const text = formatInZone(ms, zone);
        expect(text).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}[+-]\d\d:\d\d$/);
        expect(Date.parse(text)).toBe(ms);
      }
    }
  });

  test("times before 1970 keep their milliseconds", () => {
    expect(formatInZone(-1, "UTC")).toBe("1969-12-31T23:59:59.999+00:00");
  });

  test("no zone anywhere is UTC; the request's zone is the default; the model's argument wins", async () => {
    expect(await run("2025-07-15T18:30:00.000Z")).toEqual({ datetime: "2025-07-15T18:30:00.000+00:00", timezone: "UTC" });
    expect(await run("2025-07-15T18:30:00.000Z", {}, { timezone: "Asia/Tokyo" })).toEqual({ datetime: "2025-07-16T03:30:00.000+09:00", timezone: "Asia/Tokyo" });
    expect((await run("2025-07-15T18:30:00.000Z", { timezone: "Europe/Paris" }, { timezone: "Asia/Tokyo" })).datetime).toBe("2025-07-15T20:30:00.000+02:00");
  });

  test("an unknown zone from the model is a plain Error (an error result), not a 400", async () => {
    const failure = await run("2025-07-15T18:30:00.000Z", { timezone: "Mars/Olympus_Mons" }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failure).toBeInstanceOf(Error);
    expect((failure as Error).message).toBe('unknown IANA time zone "Mars/Olympus_Mons"');
    expect(isGatewayError(failure)).toBe(false);
  });

  test("arguments of the wrong type or unknown keys are error results", async () => {
    await expect(run("2025-07-15T18:30:00.000Z", { timezone: 5 })).rejects.toThrow(/invalid arguments \(timezone\)/);
    await expect(run("2025-07-15T18:30:00.000Z", { zone: "UTC" })).rejects.toThrow(/invalid arguments/);
  });
});

describe("service:datetime declaration", () => {
  const declaration = (parameters: Record<string, unknown>): ToolDeclaration => ({
    parameters,
    config: {},
    format: "chat",
    catalog: emptyCatalog,
    helpers: fakeHelpers(),
    field: "tools[2].parameters",
  });

  test("an unknown IANA zone is a 400 naming the field", () => {
    let thrown: unknown;
    try {
      datetime.declare!(declaration({ timezone: "Nowhere/Atlantis" }));
    } catch (error) {
      thrown = error;
    }
    expect(isGatewayError(thrown)).toBe(true);
    const error = thrown as { status: number; message: string; metadata?: Record<string, unknown> };
    expect(error.status).toBe(400);
    expect(error.message).toBe('tools[2].parameters.timezone: unknown IANA time zone "Nowhere/Atlantis"');
    expect(error.metadata).toEqual({ field: "tools[2].parameters.timezone" });
  });

  test("known zones and no zone pass", () => {
    expect(() => datetime.declare!(declaration({ timezone: "Asia/Kolkata" }))).not.toThrow();
    expect(() => datetime.declare!(declaration({}))).not.toThrow();
  });

  test("parametersSchema: only an optional non-empty string timezone", () => {
    const check = TypeCompiler.Compile(datetime.parametersSchema as TSchema);
    expect(check.Check({})).toBe(true);
    expect(check.Check({ timezone: "UTC" })).toBe(true);
    expect(check.Check({ timezone: "" })).toBe(false);
    expect(check.Check({ timezone: 5 })).toBe(false);
    expect(check.Check({ timezone: "UTC", tz: "UTC" })).toBe(false);
  });

  test("the model sees an object with an optional string timezone", () => {
    expect(JSON.parse(JSON.stringify(datetime.argumentsSchema))).toMatchObject({
      type: "object",
      properties: { timezone: { type: "string" } },
      additionalProperties: false,
    });
    expect((datetime.argumentsSchema as { required?: unknown }).required).toBeUndefined();
  });
});
