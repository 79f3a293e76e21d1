/**
 * `service:datetime`: the current date and time in an IANA time zone.
 * Request entry: `{type: "service:datetime", parameters?: {timezone?}}` (default zone UTC; an unknown zone is a 400
 * naming `<field>.timezone`). The model may pass `{timezone}` to ask about another zone (an unknown one is an error
 * result, never a request failure). Result: `{datetime: "2025-07-15T14:30:00.000-04:00", timezone}`, ISO 8601 with
 * milliseconds and the zone's UTC offset at that instant (DST and half-hour zones included). Free.
 */
import { Type } from "@sinclair/typebox";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { defineTool } from "../core/sdk/index.ts";

const TIMEZONE = Type.String({ minLength: 1, maxLength: 64, description: 'IANA time zone name, e.g. "Europe/Paris" (default UTC).' });

const ParametersSchema = Type.Object({ timezone: Type.Optional(TIMEZONE) }, { additionalProperties: false });

const ArgumentsSchema = Type.Object(
  { timezone: Type.Optional({ ...TIMEZONE, description: 'IANA time zone name, e.g. "America/New_York"; omit for the default zone.' }) },
  { additionalProperties: false },
);
const argumentsCheck = TypeCompiler.Compile(ArgumentsSchema);

/** True when Intl knows the zone (IANA names, case-insensitive, and the aliases ICU carries). */
export function isKnownTimeZone(zone: string): boolean {
  try {
    formatterFor(zone);
    return true;
  } catch {
    return false;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

/** One formatter per zone (building one costs more than formatting); only valid zones get here, so it stays small. */
function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    const fields = { year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", second: "2-digit" } as const;
    formatter = new Intl.DateTimeFormat("en-US", { timeZone: zone, hourCycle: "h23", ...fields });
    if (formatters.size >= 512) formatters.clear();
    formatters.set(zone, formatter);
  }
  return formatter;
}

const pad = (n: number, width = 2) => String(Math.abs(n)).padStart(width, "0");

/** `epochMs` as ISO 8601 local time in `zone` with milliseconds and offset (`2025-07-15T14:30:00.000-04:00`); years 1000–9999. */
export function formatInZone(epochMs: number, zone: string): string {
  const formatter = formatterFor(zone);
  const millis = ((epochMs % 1000) + 1000) % 1000;
  const wholeSecond = epochMs - millis;
  const parts: Record<string, string> = {};
  for (const part of formatter.formatToParts(new Date(wholeSecond))) parts[part.type] = part.value;
  // The zone's wall clock read as if it were UTC, minus the real instant, is the zone's offset at that instant.
  const wall = Date.UTC(Number(parts.year), Number(parts.month) - 1, Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  const offsetMinutes = Math.round((wall - wholeSecond) / 60_000);
  // Rebuilt from the rounded offset so the printed time and offset always agree (old LMT offsets have seconds).
  const local = new Date(wholeSecond + offsetMinutes * 60_000);
  const sign = offsetMinutes < 0 ? "-" : "+";
  return (
    `${pad(local.getUTCFullYear(), 4)}-${pad(local.getUTCMonth() + 1)}-${pad(local.getUTCDate())}` +
    `T${pad(local.getUTCHours())}:${pad(local.getUTCMinutes())}:${pad(local.getUTCSeconds())}.${pad(millis, 3)}` +
    `${sign}${pad(Math.trunc(Math.abs(offsetMinutes) / 60))}:${pad(Math.abs(offsetMinutes) % 60)}`
  );
}

export default defineTool({
  id: "service:datetime",
  description: "Returns the current date and time (ISO 8601 with the UTC offset) in an IANA time zone.",
  parametersSchema: ParametersSchema,
  argumentsSchema: ArgumentsSchema,
  declare(declaration) {
    const zone = declaration.parameters.timezone;
    if (typeof zone === "string" && !isKnownTimeZone(zone)) {
      const param = `${declaration.field}.timezone`;
      throw declaration.helpers.error("invalid_request", `${param}: unknown IANA time zone "${zone}"`, { metadata: { field: param } });
    }
  },
  async run(args, ctx) {
    const bad = argumentsCheck.Errors(args).First();
    if (bad) throw new Error(`invalid arguments${bad.path ? ` (${bad.path.slice(1)})` : ""}: ${bad.message}`);
    const requested = args.timezone ?? ctx.parameters.timezone ?? "UTC";
    const timezone = typeof requested === "string" ? requested : "UTC";
    if (!isKnownTimeZone(timezone)) throw new Error(`unknown IANA time zone "${timezone}"`);
    return { datetime: formatInZone(ctx.helpers.now(), timezone), timezone };
  },
});
