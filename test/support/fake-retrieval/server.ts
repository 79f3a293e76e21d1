/**
 * ONE loopback fake of the retrieval APIs the gateway's adapters call (README "Embeddings and rerank"), each in its
 * upstream's own shape, recording every request: OpenAI `POST /v1/embeddings` (also under an Azure deployment path),
 * Gemini `:embedContent` / `:batchEmbedContents`, Bedrock `InvokeModel` for Titan and Cohere embedding models, and
 * Cohere `/v2/embed`, Voyage `/v1/embeddings`, and the Cohere (`/v2/rerank`), Jina (`/v1/rerank`) and Voyage (`/v1/rerank`)
 * rerank calls. The Cohere and Voyage routes are checked against their official clients
 * (test/integration/embeddings/retrieval-fakes-sdk.test.ts). A vector is
 * `[characters, words, 1]` of its input (token ids: `[ids, first id, 1]`); a rerank score is the share of the query's
 * words in the document. `fail(status)` makes the next requests fail with that status.
 */
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: Record<string, any>;
}

export interface FakeRetrieval {
  origin: string;
  readonly requests: RecordedRequest[];
  /** The next `count` requests answer `status` with an error body. */
  fail(status: number, count?: number): void;
  reset(): void;
  stop(): Promise<void>;
}

/** The fake's vector of one input. */
export function fakeVector(input: string | number[]): number[] {
  return typeof input === "string" ? [input.length, input.split(/\s+/).filter(Boolean).length, 1] : [input.length, input[0] ?? 0, 1];
}

/** The fake's score of a document for a query. */
export function fakeScore(query: string, document: string): number {
  const wanted = new Set(query.toLowerCase().split(/\s+/).filter(Boolean));
  const present = new Set(document.toLowerCase().split(/\s+/).filter(Boolean));
  let shared = 0;
  for (const word of wanted) if (present.has(word)) shared++;
  return wanted.size === 0 ? 0 : shared / wanted.size;
}

function ranked(query: string, documents: string[], topN: number | undefined): Array<{ index: number; score: number }> {
  const all = documents.map((d, index) => ({ index, score: fakeScore(query, d) })).sort((a, b) => b.score - a.score);
  return topN === undefined ? all : all.slice(0, topN);
}

const words = (texts: string[]) => texts.reduce((n, t) => n + t.split(/\s+/).filter(Boolean).length, 0);

/** The answer of one request, by path; undefined: 404. */
function answer(path: string, body: Record<string, any>): unknown {
  if (path.endsWith("/voyage/v1/embeddings")) {
    // Voyage's own list: in input order, and usage with total_tokens only (no prompt_tokens), as `voyageai` reads it.
    const inputs: string[] = typeof body.input === "string" ? [body.input] : body.input;
    const data = inputs.map((input, index) => ({ object: "embedding", embedding: fakeVector(input), index }));
    return { object: "list", data, model: body.model, usage: { total_tokens: words(inputs) } };
  }
  if (path.endsWith("/embeddings")) {
    const inputs: Array<string | number[]> = typeof body.input === "string" ? [body.input] : typeof body.input?.[0] === "number" ? [body.input] : body.input;
    // Reversed on purpose: the adapter must put the vectors back in order by their index.
    const data = inputs.map((input, index) => ({ object: "embedding", index, embedding: fakeVector(input) })).reverse();
    const tokens = inputs.reduce<number>((n, i) => n + (typeof i === "string" ? words([i]) : i.length), 0);
    return { object: "list", data, model: body.model ?? "deployment", usage: { prompt_tokens: tokens, total_tokens: tokens } };
  }
  if (path.endsWith(":embedContent")) return { embedding: { values: fakeVector(body.content.parts.map((p: { text: string }) => p.text).join("")) } };
  if (path.endsWith(":batchEmbedContents")) {
    return { embeddings: body.requests.map((r: any) => ({ values: fakeVector(r.content.parts.map((p: { text: string }) => p.text).join("")) })) };
  }
  if (path.includes("/model/") && path.endsWith("/invoke")) {
    // Titan takes one text; Cohere a list of texts.
    if (typeof body.inputText === "string") return { embedding: fakeVector(body.inputText), inputTextTokenCount: words([body.inputText]) };
    return { id: "c1", embeddings: { float: body.texts.map((t: string) => fakeVector(t)) }, texts: body.texts, response_type: "embeddings_by_type" };
  }
  if (path.endsWith("/v2/embed")) {
    return { id: "e1", embeddings: { float: body.texts.map((t: string) => fakeVector(t)) }, texts: body.texts, meta: { billed_units: { input_tokens: words(body.texts) } }, response_type: "embeddings_by_type" };
  }
  if (path.endsWith("/v2/rerank")) {
    const results = ranked(body.query, body.documents, body.top_n).map((r) => ({ index: r.index, relevance_score: r.score }));
    return { id: "r1", results, meta: { billed_units: { search_units: 1 } } };
  }
  if (path.endsWith("/jina/v1/rerank")) {
    const results = ranked(body.query, body.documents, body.top_n).map((r) => ({ index: r.index, relevance_score: r.score, document: { text: body.documents[r.index] } }));
    return { model: body.model, results, usage: { total_tokens: words([body.query, ...body.documents]) } };
  }
  if (path.endsWith("/voyage/v1/rerank")) {
    const data = ranked(body.query, body.documents, body.top_k).map((r) => ({ index: r.index, relevance_score: r.score }));
    return { object: "list", data, model: body.model, usage: { total_tokens: words([body.query, ...body.documents]) } };
  }
  return undefined;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString("utf8");
}

function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

export async function startFakeRetrieval(): Promise<FakeRetrieval> {
  const requests: RecordedRequest[] = [];
  const failures: number[] = [];
  const server = createServer(async (req, res) => {
    const text = await readBody(req);
    const url = new URL(req.url ?? "/", "http://127.0.0.1");
    const headers = Object.fromEntries(Object.entries(req.headers).map(([k, v]) => [k, String(v)]));
    const body = text === "" ? {} : (JSON.parse(text) as Record<string, any>);
    requests.push({ method: req.method ?? "", path: url.pathname + url.search, headers, body });
    const failure = failures.shift();
    if (failure !== undefined) return json(res, failure, { error: { message: `fake failure ${failure}`, type: "server_error", code: failure } });
    const reply = answer(decodeURIComponent(url.pathname), body);
    if (reply === undefined) return json(res, 404, { error: { message: `no route ${url.pathname}` } });
    json(res, 200, reply);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    requests,
    fail: (status, count = 1) => void failures.push(...new Array<number>(count).fill(status)),
    reset: () => void (requests.length = 0, failures.length = 0),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
