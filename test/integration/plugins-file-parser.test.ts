/**
 * The file-parser plugin through HTTP, with PDFs made in the test: a PDF sent as a chat `file`
 * part, a Responses `input_file`, an Anthropic `document` block, or by URL (fetched under the network policy) reaches
 * a text-only model as its text; a model whose config reads files gets the file itself; the text comes back as a
 * file annotation, and sending it back skips the parsing; encrypted, corrupt and oversized PDFs are clear 400s.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { corruptPdf, minimalPdf, pdfDataUrl } from "../support/pdf.ts";
import { startScriptedModel, type ScriptedModel } from "../support/scripted-model.ts";
import { startTestGateway, type TestGateway } from "../support/gateway.ts";

const REPORT = minimalPdf(["Quarterly report", "Revenue grew by 12 percent."]);
const REPORT_URL = pdfDataUrl(REPORT);

let upstream: ScriptedModel;
let files: ReturnType<typeof Bun.serve>;
let gw: TestGateway;
let openai: OpenAI;

beforeAll(async () => {
  upstream = startScriptedModel(() => ({ text: "Read it." }));
  // Serves the PDFs fetched by URL; the gateway may reach it because the test allows 127.0.0.1 explicitly.
  files = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch(request) {
      const path = new URL(request.url).pathname;
      if (path === "/docs/report.pdf") return new Response(REPORT, { headers: { "content-type": "application/pdf" } });
      if (path === "/docs/big.pdf") return new Response(minimalPdf(["big"], { padding: 3000 }), { headers: { "content-type": "application/pdf" } });
      if (path === "/docs/page.pdf") return new Response("<html>not a pdf</html>", { headers: { "content-type": "text/html" } });
      return new Response("missing", { status: 404 });
    },
  });
  const model = (id: string, extra: Record<string, unknown> = {}) => ({ id, upstream_model: "m", pricing: { prompt: 0.000001, completion: 0.000002 }, context_length: 100_000, ...extra });
  gw = await startTestGateway({
    file: {
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [model("acme/text"), model("acme/files", { input_modalities: ["text", "image", "file"] })] }],
      network: { allow_private: ["127.0.0.1/32"] },
    },
  });
  openai = new OpenAI({ baseURL: gw.baseUrl, apiKey: gw.inferenceKey, maxRetries: 0, defaultHeaders: { "x-service-metadata": "enabled" } });
});
afterAll(async () => {
  await gw.close();
  upstream.stop();
  await files.stop(true);
});

/** The text of the last upstream request's last user message, as the model saw it. */
function lastUserContent(): unknown {
  const messages = upstream.bodies.at(-1)!.messages as Array<{ role: string; content: unknown }>;
  return messages.filter((m) => m.role === "user").at(-1)!.content;
}

const fileMessage = (fileData: string, filename = "report.pdf") => ({
  role: "user" as const,
  content: [
    { type: "text" as const, text: "Summarise this file." },
    { type: "file" as const, file: { filename, file_data: fileData } },
  ],
});

interface ChatResult {
  choices: Array<{ message: { content: string; annotations?: Array<Record<string, unknown>> } }>;
  service_metadata?: { pipeline?: Array<Record<string, unknown>>; warnings?: Array<Record<string, unknown>> };
  error?: { code: number; message: string; metadata: Record<string, unknown> };
}

async function chat(body: Record<string, unknown>): Promise<{ status: number; json: ChatResult }> {
  const res = await gw.request("/chat/completions", { method: "POST", json: body, headers: { "x-service-metadata": "enabled" } });
  return { status: res.status, json: (await res.json()) as ChatResult };
}

const parserEntries = (json: ChatResult) => (json.service_metadata?.pipeline ?? []).filter((e) => e.name === "file-parser");

describe("pdf-text for a model that cannot read files", () => {
  test("chat file part (data URL): the model sees the text, the reply carries it as a file annotation", async () => {
    const completion = await openai.chat.completions.create({ model: "acme/text", messages: [fileMessage(REPORT_URL)] });
    const content = lastUserContent() as Array<{ type: string; text?: string }>;
    expect(content.map((c) => c.type)).toEqual(["text", "text"]);
    expect(content[1]!.text).toBe('<file name="report.pdf">\nQuarterly report\nRevenue grew by 12 percent.\n</file>');
    const message = completion.choices[0]!.message as unknown as { annotations: Array<{ type: string; file: { hash: string; name: string; content: unknown } }> };
    expect(message.annotations).toEqual([
      { type: "file", file: { hash: new Bun.CryptoHasher("sha256").update(REPORT_URL).digest("hex"), name: "report.pdf", content: [{ type: "text", text: "Quarterly report\nRevenue grew by 12 percent." }] } },
    ]);
    const metadata = (completion as unknown as ChatResult).service_metadata;
    expect(metadata?.pipeline?.filter((e) => e.name === "file-parser")).toEqual([{ type: "plugin", name: "file-parser", engine: "pdf-text", files: 1, parsed: 1, reused: 0, pages: 1 }]);
  });

  test("sending the annotation back skips the parsing: the text it carries is what the model sees", async () => {
    const first = await chat({ model: "acme/text", messages: [fileMessage(REPORT_URL)] });
    const annotation = first.json.choices[0]!.message.annotations![0] as { file: { hash: string } };
    const edited = { type: "file", file: { hash: annotation.file.hash, name: "report.pdf", content: [{ type: "text", text: "Text from the earlier reply." }] } };
    const { status, json } = await chat({
      model: "acme/text",
      messages: [fileMessage(REPORT_URL), { role: "assistant", content: "Read it.", annotations: [edited] }, { role: "user", content: "And again?" }],
    });
    expect(status).toBe(200);
    const sent = upstream.bodies.at(-1)!.messages as Array<{ role: string; content: Array<{ text?: string }> | string }>;
    expect((sent[0]!.content as Array<{ text?: string }>)[1]!.text).toBe('<file name="report.pdf">\nText from the earlier reply.\n</file>');
    expect(parserEntries(json)).toEqual([{ type: "plugin", name: "file-parser", engine: "pdf-text", files: 1, parsed: 0, reused: 1, pages: 0 }]);
    // The annotations were used, so no "unknown field" warning about them.
    expect((json.service_metadata?.warnings ?? []).filter((w) => String(w.field).endsWith("annotations"))).toEqual([]);
  });

  test("a PDF by http(s) URL is fetched through the network policy", async () => {
    const origin = `http://127.0.0.1:${files.port}`;
    const { status } = await chat({ model: "acme/text", messages: [fileMessage(`${origin}/docs/report.pdf`, "")] });
    expect(status).toBe(200);
    expect((lastUserContent() as Array<{ text?: string }>)[1]!.text).toContain("Revenue grew by 12 percent.");
    // A cloud-metadata address is refused by the policy: a 400 naming the file, nothing fetched.
    const refused = await chat({ model: "acme/text", messages: [fileMessage("http://169.254.169.254/latest/doc.pdf", "doc.pdf")] });
    expect(refused.status).toBe(400);
    expect(refused.json.error?.metadata).toMatchObject({ error_type: "invalid_request", reason: "file_download_failed", file: "doc.pdf" });
    const missing = await chat({ model: "acme/text", messages: [fileMessage(`${origin}/docs/gone.pdf`, "gone.pdf")] });
    expect([missing.status, missing.json.error?.message]).toEqual([400, 'file-parser: "gone.pdf" could not be downloaded: HTTP 404']);
  });

  test("Responses input_file and a Messages document block are read the same way", async () => {
    const response = await openai.responses.create({
      model: "acme/text",
      input: [{ role: "user", content: [{ type: "input_text", text: "Summarise." }, { type: "input_file", filename: "report.pdf", file_data: REPORT_URL }] }],
    });
    expect(response.status).toBe("completed");
    expect(JSON.stringify(lastUserContent())).toContain("Revenue grew by 12 percent.");
    const output = response.output.find((item) => item.type === "message") as { content: Array<{ annotations: Array<{ type: string }> }> };
    expect(output.content[0]!.annotations.map((a) => a.type)).toEqual(["file"]);

    const anthropic = new Anthropic({ baseURL: gw.origin + "/api", apiKey: gw.inferenceKey, maxRetries: 0 });
    const message = await anthropic.messages.create({
      model: "acme/text",
      max_tokens: 100,
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: Buffer.from(REPORT).toString("base64") }, title: "report.pdf" },
            { type: "text", text: "Summarise." },
          ],
        },
      ],
    });
    expect(message.content[0]).toMatchObject({ type: "text", text: "Read it.", citations: null });
    expect(JSON.stringify(lastUserContent())).toContain('<file name=\\"report.pdf\\">\\nQuarterly report');
  });

  test("streamed: the annotation arrives on a chunk's delta", async () => {
    const stream = await openai.chat.completions.create({ model: "acme/text", messages: [fileMessage(REPORT_URL)], stream: true });
    const annotations: unknown[] = [];
    for await (const chunk of stream) annotations.push(...(((chunk.choices[0]?.delta as { annotations?: unknown[] } | undefined)?.annotations) ?? []));
    expect(annotations).toMatchObject([{ type: "file", file: { name: "report.pdf" } }]);
  });
});

describe("native", () => {
  test("a model whose config reads files gets the file itself; no annotation", async () => {
    const { status, json } = await chat({ model: "acme/files", messages: [fileMessage(REPORT_URL)] });
    expect(status).toBe(200);
    expect((lastUserContent() as Array<{ type: string; file?: { file_data: string; filename?: string } }>)[1]).toEqual({ type: "file", file: { file_data: REPORT_URL, filename: "report.pdf" } });
    expect(json.choices[0]!.message.annotations).toBeUndefined();
    expect(parserEntries(json)).toEqual([{ type: "plugin", name: "file-parser", engine: "native", files: 1 }]);
  });

  test("the request's engine wins: pdf-text for a file-reading model; a peer OCR engine is read as pdf-text with a warning", async () => {
    const asked = await chat({ model: "acme/files", messages: [fileMessage(REPORT_URL)], plugins: [{ id: "file-parser", pdf: { engine: "pdf-text" } }] });
    expect(parserEntries(asked.json)[0]).toMatchObject({ engine: "pdf-text", parsed: 1 });
    const ocr = await chat({ model: "acme/text", messages: [fileMessage(REPORT_URL)], plugins: [{ id: "file-parser", pdf: { engine: "mistral-ocr" } }] });
    expect(ocr.status).toBe(200);
    expect(ocr.json.service_metadata?.warnings).toContainEqual({ code: "approximated", field: "plugins.file-parser.pdf.engine", message: 'PDF engine "mistral-ocr" is not available on this gateway; pdf-text was used' });
  });

  test("/models lists what each model reads (config input_modalities; undeclared: text)", async () => {
    const listing = (await (await gw.request("/models")).json()) as { data: Array<{ id: string; architecture: { input_modalities: string[]; modality: string } }> };
    const byId = new Map(listing.data.map((m) => [m.id, m.architecture]));
    expect(byId.get("acme/files")).toMatchObject({ input_modalities: ["text", "image", "file"], modality: "text+image+file->text" });
    expect(byId.get("acme/text")?.input_modalities).toEqual(["text"]);
  });

  test("without PDFs the plugin does nothing and says nothing", async () => {
    const { json } = await chat({ model: "acme/text", messages: [{ role: "user", content: "Hi" }] });
    expect(parserEntries(json)).toEqual([]);
  });
});

describe("refused files", () => {
  test.each([
    ["encrypted", pdfDataUrl(minimalPdf(["secret"], { encrypted: true })), "invalid_request", "pdf_encrypted", 'file-parser: "report.pdf" is encrypted (password-protected); send it decrypted'],
    ["corrupt", pdfDataUrl(corruptPdf()), "invalid_request", "pdf_unreadable", undefined],
    ["not a PDF", `data:application/pdf;base64,${Buffer.from("hello").toString("base64")}`, "invalid_request", "pdf_unreadable", 'file-parser: "report.pdf" is not a PDF (no %PDF- header)'],
  ])("%s → 400", async (_label, data, type, reason, message) => {
    const { status, json } = await chat({ model: "acme/text", messages: [fileMessage(data)] });
    expect(status).toBe(400);
    expect(json.error?.metadata).toMatchObject({ error_type: type, reason, file: "report.pdf" });
    if (message) expect(json.error?.message).toBe(message);
  });

  test("over max_bytes (data URL or download) → 400 payload_too_large; the boundary itself passes", async () => {
    const big = minimalPdf(["big"], { padding: 3000 });
    const options = (max: number) => [{ id: "file-parser", max_bytes: max }];
    const over = await chat({ model: "acme/text", messages: [fileMessage(pdfDataUrl(big))], plugins: options(big.byteLength - 1) });
    expect([over.status, over.json.error?.metadata.error_type, over.json.error?.metadata.reason]).toEqual([400, "payload_too_large", "pdf_too_large"]);
    const exact = await chat({ model: "acme/text", messages: [fileMessage(pdfDataUrl(big))], plugins: options(big.byteLength) });
    expect(exact.status).toBe(200);
    const download = await chat({ model: "acme/text", messages: [fileMessage(`http://127.0.0.1:${files.port}/docs/big.pdf`)], plugins: options(2048) });
    expect([download.status, download.json.error?.metadata.reason]).toEqual([400, "pdf_too_large"]);
  });

  test("an HTML page behind a .pdf URL is not a PDF", async () => {
    const { status, json } = await chat({ model: "acme/text", messages: [fileMessage(`http://127.0.0.1:${files.port}/docs/page.pdf`)] });
    expect([status, json.error?.metadata.reason]).toEqual([400, "pdf_unreadable"]);
  });

  test("unknown engine or options → 400 naming the field", async () => {
    const engine = await chat({ model: "acme/text", messages: [{ role: "user", content: "Hi" }], plugins: [{ id: "file-parser", pdf: { engine: "ocr" } }] });
    expect([engine.status, engine.json.error?.metadata.param]).toEqual([400, "plugins[0].pdf.engine"]);
    const small = await chat({ model: "acme/text", messages: [{ role: "user", content: "Hi" }], plugins: [{ id: "file-parser", max_bytes: 1023 }] });
    expect([small.status, small.json.error?.metadata.param]).toEqual([400, "plugins[0].max_bytes"]);
  });
});
