/**
 * URL citations in the answer of a request the `web` plugin searched for: where the model's text names a result's
 * URL (bare or as a Markdown link), the text part gets a `url_citation` annotation, exactly as the agent loop cites
 * its own searches (core/pipeline/agent/citations.ts); each format renders it its own way. Also counts the search in
 * the reply's `usage.serverTools.web_search_requests`, as a search the agent loop runs is counted.
 */
import { citationsIn, type Source } from "../../core/sdk/index.ts";
import type { CanonicalResponse, EventStream, Usage } from "../../core/sdk/index.ts";

export function citeResponse(response: CanonicalResponse, sources: readonly Source[], searches: number): CanonicalResponse {
  for (const part of response.parts) {
    if (part.type !== "text" || sources.length === 0) continue;
    const citations = citationsIn(part.text, sources);
    if (citations.length > 0) part.annotations = [...(part.annotations ?? []), ...citations];
  }
  response.usage = counted(response.usage, searches);
  return response;
}

export async function* citeStream(events: EventStream, sources: readonly Source[], searches: number): EventStream {
  const texts = new Map<string, string>();
  for await (const event of events) {
    if (event.type === "text-delta") texts.set(event.id, (texts.get(event.id) ?? "") + event.delta);
    if (event.type === "text-end" && sources.length > 0) {
      const citations = citationsIn(texts.get(event.id) ?? "", sources);
      texts.delete(event.id);
      yield citations.length === 0 ? event : { ...event, annotations: [...(event.annotations ?? []), ...citations] };
    } else if (event.type === "usage") {
      yield { ...event, usage: counted(event.usage, searches) };
    } else {
      yield event;
    }
  }
}

function counted(usage: Usage, searches: number): Usage {
  if (searches === 0) return usage;
  const tools = usage.serverTools ?? {};
  return { ...usage, serverTools: { ...tools, web_search_requests: (tools.web_search_requests ?? 0) + searches } };
}
