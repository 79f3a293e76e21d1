/**
 * Hostile PDFs through the file-parser plugin (on by default, a `data:` URL in the request), made in the test: a
 * 1 MB Flate bomb (1 GiB of zeros), a stream of text operators inflating to 256 MB, 20,000 pages, more text than
 * the cap; each is a 400 naming the cap, while an ordinary request from the same gateway is served and the process
 * grows by far less than those documents made it grow before. With the caps raised, the memory bound stops the
 * bomb's worker instead, and that too is a 400 naming the bound. Readable PDFs still read afterwards.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { flateBombPdf, manyPagesPdf } from "../support/hostile-documents.ts";
import { alongside, MEMORY_GROWTH_BOUND } from "../support/in-flight.ts";
import { minimalPdf, pdfDataUrl } from "../support/pdf.ts";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";
import type { ConfigFile } from "../../core/config/file-schema.ts";

interface Answer {
  status: number;
  json: { error?: { message: string; metadata: Record<string, unknown> }; choices?: Array<{ message: { content: string } }> };
}

let upstream: ScriptedModel;
let gw: TestGateway;
let lowMemory: TestGateway;

const start = (documents: ConfigFile["documents"] = undefined) =>
  startTestGateway({
    file: {
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ id: "acme/text", upstream_model: "m", pricing: { prompt: 0.000001, completion: 0.000002 }, context_length: 100_000 }] }],
      ...(documents ? { documents } : {}),
    },
  });

beforeAll(async () => {
  upstream = startScriptedModel(() => ({ text: "Read it." }));
  gw = await start();
  // The bomb passes the decoded-bytes cap here, so only the memory bound can stop it.
  lowMemory = await start({ max_memory_bytes: 256 * 1024 * 1024, pdf: { max_decoded_bytes: 8 * 1024 ** 3 } });
});
afterAll(async () => {
  await gw.close();
  await lowMemory.close();
  upstream.stop();
});

async function chat(gateway: TestGateway, body: Record<string, unknown>): Promise<Answer> {
  const res = await gateway.request("/chat/completions", { method: "POST", json: body });
  return { status: res.status, json: (await res.json()) as Answer["json"] };
}

const withPdf = (pdf: Uint8Array) => ({
  model: "acme/text",
  messages: [{ role: "user", content: [{ type: "text", text: "Summarise this file." }, { type: "file", file: { filename: "hostile.pdf", file_data: pdfDataUrl(pdf) } }] }],
});
const ordinary = (gateway: TestGateway) => () => chat(gateway, { model: "acme/text", messages: [{ role: "user", content: "Hi" }] });

describe("a hostile PDF is a 400 naming the cap, and the gateway keeps serving", () => {
  test.each([
    ["a 1 MB Flate bomb (1 GiB of zeros)", () => flateBombPdf({ zeros: 1 << 20 }, 1024), "documents.pdf.max_decoded_bytes", "decode to more than 67,108,864 bytes"],
    ["a stream of text operators inflating to 256 MB", () => flateBombPdf("0 0 Td (abc) Tj\n".repeat(65536), 256), "documents.pdf.max_decoded_bytes", "decode to more than 67,108,864 bytes"],
    ["20,000 pages", () => manyPagesPdf(20_000), "documents.pdf.max_pages", "has more than 2,000 pages"],
    ["2.5 M characters on one page", () => flateBombPdf(`BT /F1 1 Tf 10 10 Td (${"abcdefghijklmnopqrstuvwxy".repeat(10)}) Tj ET\n`, 10_000), "documents.pdf.max_chars", "has more than 2,000,000 characters of text"],
  ])("%s", async (_label, make, cap, says) => {
    const pdf = make();
    const run = await alongside(() => chat(gw, withPdf(pdf)), ordinary(gw));
    expect(run.hostile.status).toBe(400);
    expect(run.hostile.json.error?.metadata).toMatchObject({ error_type: "payload_too_large", reason: "pdf_over_cap", cap, file: "hostile.pdf" });
    expect(run.hostile.json.error?.message).toStartWith('file-parser: "hostile.pdf" ');
    expect(run.hostile.json.error?.message).toContain(says);
    expect(run.hostile.json.error?.message).toContain(`(the cap is ${cap})`);
    expect(run.ordinary.status).toBe(200);
    expect(run.peakGrowthBytes).toBeLessThan(MEMORY_GROWTH_BOUND);
  }, 30_000);

  test("over the caps' reach, the memory bound terminates the reading worker: a 400 naming the bound", async () => {
    const run = await alongside(() => chat(lowMemory, withPdf(flateBombPdf({ zeros: 1 << 20 }, 1024))), ordinary(lowMemory));
    expect(run.hostile.status).toBe(400);
    expect(run.hostile.json.error?.metadata).toMatchObject({ reason: "pdf_over_cap", cap: "documents.max_memory_bytes" });
    expect(run.hostile.json.error?.message).toBe('file-parser: "hostile.pdf" needed more than 268,435,456 bytes of memory to read (the cap is documents.max_memory_bytes)');
    expect(run.ordinary.status).toBe(200);
    expect(run.peakGrowthBytes).toBeLessThan(MEMORY_GROWTH_BOUND);
  }, 30_000);

  test("afterwards, a readable PDF is read (a terminated worker was replaced)", async () => {
    for (const gateway of [gw, lowMemory]) {
      const { status } = await chat(gateway, withPdf(minimalPdf(["Quarterly report"])));
      expect(status).toBe(200);
      const seen = JSON.stringify(upstream.bodies.at(-1)!.messages);
      expect(seen).toContain("Quarterly report");
    }
  }, 30_000);
});
