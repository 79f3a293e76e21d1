/** Shared test fixtures for the web tools: a hand-built PDF, a run context, loopback servers. */
import { GatewayError } from "../../../../core/errors.ts";
import type { ModuleHelpers } from "../../../../core/registry/helpers.ts";
import { sharedDocumentService } from "../../../../core/jobs/documents/service.ts";
import { toolRunContext } from "../run-context.ts";
import type { ToolRunContext } from "../../../../core/registry/tool.ts";

/** A minimal valid one-page PDF showing `lines` in Helvetica, with an optional document-info title. */
export function minimalPdf(lines: string[], title?: string): Uint8Array {
  const escape = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 18 Tf 72 720 Td 22 TL ${lines.map((line) => `(${escape(line)}) Tj T*`).join(" ")} ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Title (${escape(title ?? "")}) /Producer (test) >>`,
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${title ? " /Info 6 0 R" : ""} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

export interface Charge {
  usd: number;
  description: string;
}

/** A run context whose fetch is the global one (tests only ever aim it at 127.0.0.1). */
export function runContext(
  overrides: Partial<ToolRunContext> & { charges?: Charge[] } = {},
): ToolRunContext & { charges: Charge[] } {
  const charges = overrides.charges ?? [];
  const helpers: ModuleHelpers = {
    error: (type, message, init) => new GatewayError(type, message, init),
    logger: {} as ModuleHelpers["logger"],
    fetch: (input, init) => fetch(input, init),
    kv: {} as ModuleHelpers["kv"],
    // Real document workers with the default caps (web_fetch reads PDFs and HTML through them).
    documents: sharedDocumentService(),
    now: () => Date.UTC(2025, 6, 15, 12, 0, 0),
    id: (prefix) => `${prefix}1`,
  };
  const run = toolRunContext({
    helpers,
    fetch: (input, init) => fetch(input, init),
    catalog: {} as ToolRunContext["catalog"],
    charge: async (usd, description) => void charges.push({ usd, description }),
    ...overrides,
  });
  return { ...run, charges };
}

/** What a fake server saw. */
export interface Seen {
  method: string;
  url: URL;
  headers: Headers;
  body: string;
}

/** A loopback server on a free port; `seen` records every request. Stop it with `server.stop(true)`. */
export function fakeServer(handler: (request: Request, url: URL) => Response | Promise<Response>) {
  const seen: Seen[] = [];
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    async fetch(request) {
      const url = new URL(request.url);
      seen.push({ method: request.method, url, headers: request.headers, body: await request.text() });
      return handler(request, url);
    },
  });
  return { server, seen, base: `http://127.0.0.1:${server.port}` };
}
