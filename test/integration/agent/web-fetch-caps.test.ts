/**
 * Hostile pages through service:web_fetch, served by a loopback fake the gateway may reach through the operator
 * allow-list (127.0.0.1/32): HTML nested 100,000 and 20,000 levels deep, 150,000 paragraphs, a 500 × 500 table, 50 MB
 * of words as text/html, a PDF Flate bomb. Each is a failed tool call whose error, the one the model sees, names the
 * cap; an ordinary request is served meanwhile and the process grows by far less than those pages made it grow
 * before. With the node cap (and the memory bound) raised, the deadline terminates the reading worker, and the error
 * names the deadline.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { alongside, MEMORY_GROWTH_BOUND } from "../../support/in-flight.ts";
import { flateBombPdf, nestedDivs, paragraphs, table } from "../../support/hostile-documents.ts";
import type { Script } from "../../support/scripted-model.ts";
import { messagesOf, MODEL, startAgentGateway, type AgentGateway } from "./setup.ts";

type Json = Record<string, any>;

const WORDS_BYTES = 50 * 1024 * 1024;
const CHUNK = new TextEncoder().encode("lorem ipsum dolor sit amet consectetur ".repeat(1700));

/** 50 MB of words as text/html, streamed without a length (the gateway must stop reading at its cap). */
function words(): Response {
  let sent = 0;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= WORDS_BYTES) return controller.close();
      sent += CHUNK.byteLength;
      controller.enqueue(CHUNK);
    },
  });
  return new Response(body, { headers: { "content-type": "text/html; charset=utf-8" } });
}

const PAGES: Record<string, () => Response> = {
  "/nested-100000": () => html(nestedDivs(100_000)),
  "/nested-20000": () => html(nestedDivs(20_000)),
  "/paragraphs": () => html(paragraphs(150_000)),
  "/table": () => html(table(500, 500)),
  "/words": words,
  "/bomb.pdf": () => new Response(flateBombPdf({ zeros: 1 << 20 }, 1024), { headers: { "content-type": "application/pdf" } }),
};

function html(page: string): Response {
  return new Response(page, { headers: { "content-type": "text/html; charset=utf-8" } });
}

let site: ReturnType<typeof Bun.serve>;
let agent: AgentGateway;
let shortDeadline: AgentGateway;

/** Fetches the URL the request's input names, then answers; requests without tools get a plain answer. */
const fetcher: Script = (body) => {
  if (!Array.isArray(body.tools)) return { text: "An ordinary answer." };
  const messages = body.messages as Json[];
  if (messages.some((m) => m.role === "tool")) return { text: "Could not read it." };
  return { calls: [{ name: "web_fetch", args: { url: String(messages.at(-1)!.content) } }] };
};

beforeAll(async () => {
  site = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: (req) => PAGES[new URL(req.url).pathname]?.() ?? new Response("not found", { status: 404 }) });
  agent = await startAgentGateway(fetcher, { network: { allow_private: ["127.0.0.1/32"] } });
  shortDeadline = await startAgentGateway(fetcher, { network: { allow_private: ["127.0.0.1/32"] }, documents: { timeout_ms: 500, max_memory_bytes: 2 * 1024 ** 3, html: { max_nodes: 5_000_000 } } });
});
afterAll(async () => {
  await agent.close();
  await shortDeadline.close();
  site.stop(true);
});

/** The fetch as the model asked for it, and a plain request from the same gateway sent while it runs. */
async function fetchAlongside(gateway: AgentGateway, path: string) {
  const url = `http://127.0.0.1:${site.port}${path}`;
  gateway.upstream.bodies.length = 0;
  const request = (json: Json) => gateway.gw.request("/responses", { method: "POST", json }).then(async (res) => ({ status: res.status, body: (await res.json()) as Json }));
  return alongside(
    () => request({ model: MODEL, input: url, tools: [{ type: "service:web_fetch" }] }),
    () => request({ model: MODEL, input: "Hello" }),
  );
}

/** The web_fetch call's error, checked to be the one the model was given. */
function toolError(gateway: AgentGateway, body: Json): string {
  const item = (body.output as Json[]).find((entry) => entry.type === "service:web_fetch")!;
  expect(item.status).toBe("failed");
  const turn = gateway.upstream.bodies.findIndex((request) => (request.messages as Json[]).some((m) => m.role === "tool"));
  const toModel = JSON.parse(String(messagesOf(gateway.upstream, turn).at(-1)!.content)) as Json;
  expect(toModel).toEqual({ error: item.error });
  return String(item.error);
}

describe("a hostile page is a tool error naming the cap, and the gateway keeps serving", () => {
  test.each([
    ["100,000 nested <div>", "/nested-100000", "could not read the page: it is nested more than 512 levels deep (the cap is documents.html.max_depth)"],
    ["20,000 nested <div>", "/nested-20000", "could not read the page: it is nested more than 512 levels deep (the cap is documents.html.max_depth)"],
    ["150,000 paragraphs", "/paragraphs", "could not read the page: it has more than 200,000 elements and text nodes (the cap is documents.html.max_nodes)"],
    ["a 500 × 500 table", "/table", "could not read the page: it has more than 200,000 elements and text nodes (the cap is documents.html.max_nodes)"],
    ["50 MB of words as text/html", "/words", "page too large: more than 5242880 bytes (the cap is 5242880 bytes, tools.web_fetch.max_bytes)"],
    ["a 1 MB PDF Flate bomb", "/bomb.pdf", "could not read the PDF: it has compressed streams that decode to more than 67,108,864 bytes (the cap is documents.pdf.max_decoded_bytes)"],
  ])(
    "%s",
    async (_label, path, error) => {
      const run = await fetchAlongside(agent, path);
      expect(run.hostile.status).toBe(200);
      expect(toolError(agent, run.hostile.body)).toBe(error);
      expect(run.hostile.body.output.at(-1).content[0].text).toBe("Could not read it.");
      expect(run.ordinary.status).toBe(200);
      expect(run.ordinary.body.output.at(-1).content[0].text).toBe("An ordinary answer.");
      expect(run.peakGrowthBytes).toBeLessThan(MEMORY_GROWTH_BOUND);
    },
    30_000,
  );

  test(
    "a page within the caps that reads too long: its worker is terminated at the deadline, the error names it",
    async () => {
      const run = await fetchAlongside(shortDeadline, "/paragraphs");
      expect(toolError(shortDeadline, run.hostile.body)).toBe("could not read the page: it took longer than 500 ms to read (the cap is documents.timeout_ms)");
      expect(run.ordinary.status).toBe(200);
      expect(run.peakGrowthBytes).toBeLessThan(MEMORY_GROWTH_BOUND);
    },
    30_000,
  );
});
