/** `service:datetime` (reference b4): the current date and time in an IANA time zone. */
import { defineTool } from "../core/registry/define.ts";

export default defineTool({
  id: "service:datetime",
  description: "Returns the current date and time, optionally in a given IANA time zone.",
  argumentsSchema: { type: "object", properties: { timezone: { type: "string" } } },
  async run(args, ctx) {
    const timezone = String(args.timezone ?? ctx.parameters.timezone ?? "UTC");
    try {
      const formatted = new Intl.DateTimeFormat("sv-SE", {
        timeZone: timezone,
        dateStyle: "short",
        timeStyle: "medium",
      }).format(new Date(ctx.helpers.now()));
      return { datetime: formatted.replace(" ", "T"), timezone };
    } catch {
      throw ctx.helpers.error("invalid_request", `service:datetime: unknown time zone "${timezone}"`);
    }
  },
});
