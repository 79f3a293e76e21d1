/**
 * The `service_metadata` an encoder writes: the trailer's, with the warnings the encoder itself raised after the edge
 * filled it (a dropped audio part, an approximated argument). The edge's object holds the request's own warnings list
 * once it had any, so later ones show there already; a list still empty then is added here, before `pipeline`, where
 * the edge puts it (core/http/service-metadata.ts).
 */
import type { Warning } from "../../model/warnings.ts";
import type { Trailer } from "../../pipeline/outcome.ts";

export function trailerMetadata(trailer: Trailer | undefined, warnings: Warning[]): Record<string, unknown> | undefined {
  const metadata = trailer?.serviceMetadata;
  if (metadata === undefined || warnings.length === 0 || "warnings" in metadata) return metadata;
  const { pipeline, ...rest } = metadata;
  return pipeline === undefined ? { ...rest, warnings } : { ...rest, warnings, pipeline };
}
