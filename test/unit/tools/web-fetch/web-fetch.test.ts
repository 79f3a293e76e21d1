/** tools/web-fetch against loopback pages: extraction per content type, caps, errors, domain filters, declaration, schemas. */
import { afterEach, describe, expect, test } from "bun:test";
import { TypeCompiler } from "@sinclair/typebox/compiler";
import { countTokens } from "gpt-tokenizer/encoding/o200k_base";
import { GatewayError } from "../../../../core/errors.ts";
import { moduleBrand } from "../../../../core/registry/define.ts";
import type { ToolDeclaration } from "../../../../core/registry/tool.ts";
import webFetch, { optionsSchema, parametersSchema } from "../../../../tools/web-fetch/index.ts";
import { fakeServer, minimalPdf, runContext } from "../web-search/fixtures.ts";

const servers: { stop(force?: boolean): unknown }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.stop(true);
});

function serve(handler: Parameters<typeof fakeServer>[0]) {
  const fake = fakeServer(handler);
  servers.push(fake.server);
  return fake;
}

interface Fetched {
  url: string;
  final_url?: string;
  title: string;
  content: string;
  status: string;
  retrieved_at: string;
  status_code: number;
  content_type: string;
  truncated: boolean;
}

const run = async (args: Record<string, unknown>, ctx = runContext()) => (await webFetch.run(args, ctx)) as Fetched;

const paragraph = (topic: string) =>
  `<p>${topic} is discussed at length in this paragraph, which carries enough ordinary prose for a reader view to treat it as the body of the article rather than as page furniture. It keeps going with more sentences, commas, and detail so that the scoring sees real content here.</p>`;

const ARTICLE = `<!doctype html>
<html><head><title>Article Title | Example Site</title><meta charset="utf-8"><script>window.tracking = "SCRIPT-SECRET";</script>
<style>.x { color: red }</style></head>
<body>
<header class="site-header"><nav><a href="/">Home</a> | <a href="/about">About</a> | <a href="/login">NAV-LOGIN</a></nav></header>
<div class="ad banner sponsored">BUY NOW cheap ADVERT-TEXT</div>
<main><article>
<h1>Article Title</h1>
${paragraph("The first topic")}
<h2>Second Section</h2>
${paragraph("The second topic")}
<p>See <a href="/docs/guide?x=1">the guide</a> and <a href="javascript:void(0)">a script link</a>.</p>
<ul><li>first item</li><li>second item</li></ul>
${paragraph("The third topic")}
</article></main>
<aside class="sidebar">SIDEBAR-TEXT related links</aside>
<footer>FOOTER-TEXT copyright</footer>
</body></html>`;

describe("HTML", () => {
  test("the main content as Markdown: headings and absolute links kept, nav, ads, scripts, sidebars and footers gone", async () => {
    const fake = serve(() => new Response(ARTICLE, { headers: { "content-type": "text/html; charset=utf-8" } }));
    const result = await run({ url: `${fake.base}/posts/article#intro` });
    expect(result.status).toBe("completed");
    expect(result.status_code).toBe(200);
    expect(result.url).toBe(`${fake.base}/posts/article`);
    expect(result.final_url).toBeUndefined();
    expect(result.title).toBe("Article Title | Example Site");
    expect(result.retrieved_at).toBe("2025-07-15T12:00:00.000Z");
    expect(result.content_type).toBe("text/html");
    expect(result.truncated).toBe(false);
    expect(result.content).toContain("## Second Section");
    expect(result.content).toContain(`[the guide](${fake.base}/docs/guide?x=1)`);
    expect(result.content).toContain("a script link");
    expect(result.content).not.toContain("javascript:");
    expect(result.content).toMatch(/^- +first item$/m);
    expect(result.content).toContain("The second topic is discussed");
    for (const noise of ["NAV-LOGIN", "ADVERT-TEXT", "SCRIPT-SECRET", "SIDEBAR-TEXT", "FOOTER-TEXT", "color: red"]) {
      expect(result.content).not.toContain(noise);
    }
    const seen = fake.seen[0]!;
    expect(seen.headers.get("user-agent")).toContain("inference-gateway-web-fetch");
    expect(seen.headers.get("accept")).toContain("text/html");
  });

  test("a page that is not an article: the body without navigation, header and footer", async () => {
    const html = `<html><head><title>Tiny</title></head><body><nav>NAV-ONLY</nav><div><h3>Status</h3><p>All systems <b>operational</b>.</p></div><footer>FOOT</footer></body></html>`;
    const fake = serve(() => new Response(html, { headers: { "content-type": "text/html" } }));
    const result = await run({ url: `${fake.base}/status` });
    expect(result.title).toBe("Tiny");
    expect(result.content).toContain("All systems **operational**.");
    expect(result.content).not.toContain("NAV-ONLY");
    expect(result.content).not.toContain("FOOT");
  });

  test("bare text or a fragment served as text/html is read as the page's body (linkedom builds none around it)", async () => {
    const fake = serve((_request, url) =>
      new Response(url.pathname === "/words" ? "plain words and nothing else" : "<p>First paragraph.</p><p>Second <b>one</b>.</p>", { headers: { "content-type": "text/html" } }),
    );
    expect((await run({ url: `${fake.base}/words` })).content).toBe("plain words and nothing else");
    const fragment = await run({ url: `${fake.base}/fragment` });
    expect(fragment.content).toContain("Second **one**.");
    expect(fragment.title).toBe("fragment");
  });

  test("a page past max_bytes is an error naming the cap, declared or not (a cut page is a broken tree)", async () => {
    const page = `<html><body><p>${"word ".repeat(2000)}</p></body></html>`;
    const fake = serve((_request, url) =>
      url.pathname === "/declared"
        ? new Response(page, { headers: { "content-type": "text/html" } })
        : new Response(new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode(page)), c.close()) }), { headers: { "content-type": "text/html" } }),
    );
    const ctx = runContext({ config: { max_bytes: 4096 } });
    await expect(webFetch.run({ url: `${fake.base}/declared` }, ctx)).rejects.toThrow(/^page too large: \d+ bytes \(the cap is 4096 bytes, tools\.web_fetch\.max_bytes\)$/);
    await expect(webFetch.run({ url: `${fake.base}/streamed` }, ctx)).rejects.toThrow(/^page too large: more than 4096 bytes \(the cap is 4096 bytes, tools\.web_fetch\.max_bytes\)$/);
  });

  test("the charset of the header (or a meta tag) decodes the body", async () => {
    const page = `<html><head><meta charset="iso-8859-1"><title>Caf\u00e9</title></head><body><p>Cr\u00e8me br\u00fbl\u00e9e</p></body></html>`;
    const latin1 = Uint8Array.from(page, (c) => c.charCodeAt(0));
    const fake = serve(() => new Response(latin1, { headers: { "content-type": "text/html" } }));
    const result = await run({ url: `${fake.base}/menu` });
    expect(result.title).toBe("Café");
    expect(result.content).toContain("Crème");
  });
});

describe("PDF", () => {
  test("a PDF becomes its text, titled from the document info", async () => {
    const pdf = minimalPdf(["Quarterly report", "Revenue grew (a lot)."], "Q3 Report");
    const fake = serve(() => new Response(pdf, { headers: { "content-type": "application/pdf" } }));
    const result = await run({ url: `${fake.base}/files/q3.pdf` });
    expect(result.title).toBe("Q3 Report");
    expect(result.content).toContain("Quarterly report");
    expect(result.content).toContain("Revenue grew (a lot).");
    expect(result.content_type).toBe("application/pdf");
  });

  test("a PDF sent as application/octet-stream is recognised by its magic; no title → the file name", async () => {
    const fake = serve(() => new Response(minimalPdf(["Sniffed text"]), { headers: { "content-type": "application/octet-stream" } }));
    const result = await run({ url: `${fake.base}/download/paper.pdf` });
    expect(result.content).toContain("Sniffed text");
    expect(result.title).toBe("paper.pdf");
  });

  test("a PDF over max_bytes is an error (a cut PDF is unreadable)", async () => {
    const pdf = minimalPdf(["x".repeat(3000)]);
    const fake = serve(() => new Response(pdf, { headers: { "content-type": "application/pdf" } }));
    const ctx = runContext({ config: { max_bytes: 2048 } });
    await expect(webFetch.run({ url: `${fake.base}/big.pdf` }, ctx)).rejects.toThrow(/^PDF too large: \d+ bytes \(the cap is 2048 bytes, tools\.web_fetch\.max_bytes\)$/);
  });

  test("a broken PDF is an error", async () => {
    const fake = serve(() => new Response("%PDF-1.4 garbage", { headers: { "content-type": "application/pdf" } }));
    await expect(run({ url: `${fake.base}/broken.pdf` })).rejects.toThrow(/^could not read the PDF/);
  });
});

describe("text and JSON", () => {
  test("text/plain and text/markdown come as they are, titled by the file name", async () => {
    const fake = serve((_request, url) =>
      url.pathname.endsWith(".md")
        ? new Response("# Readme\n\nHello *there*.", { headers: { "content-type": "text/markdown; charset=utf-8" } })
        : new Response("line one\nline two\n", { headers: { "content-type": "text/plain" } }),
    );
    const text = await run({ url: `${fake.base}/notes/todo.txt` });
    expect(text).toMatchObject({ title: "todo.txt", content: "line one\nline two\n", content_type: "text/plain", status: "completed" });
    const markdown = await run({ url: `${fake.base}/README.md` });
    expect(markdown.content).toBe("# Readme\n\nHello *there*.");
  });

  test("JSON (and +json types) come as they are", async () => {
    const body = JSON.stringify({ name: "gateway", tags: ["a", "b"] });
    const fake = serve((_request, url) =>
      new Response(body, { headers: { "content-type": url.pathname === "/ld" ? "application/ld+json" : "application/json" } }),
    );
    expect((await run({ url: `${fake.base}/api/item` })).content).toBe(body);
    expect((await run({ url: `${fake.base}/ld` })).content).toBe(body);
  });

  test("a url without a scheme gets https:// (here refused by the domain filter before any request)", async () => {
    const ctx = runContext({ parameters: { allowed_domains: ["example.org"] } });
    await expect(webFetch.run({ url: "example.com/page" }, ctx)).rejects.toThrow("url not allowed by allowed_domains");
  });
});

describe("failures", () => {
  test("HTTP errors: HTTP <status>: <reason>", async () => {
    const fake = serve((_request, url) => new Response("nope", { status: url.pathname === "/gone" ? 410 : 404 }));
    await expect(run({ url: `${fake.base}/missing` })).rejects.toThrow(/^HTTP 404: Not Found$/);
    await expect(run({ url: `${fake.base}/gone` })).rejects.toThrow(/^HTTP 410: Gone$/);
  });

  test("unsupported content types are refused without reading the body", async () => {
    const fake = serve(() => new Response(new Uint8Array([0x89, 0x50, 0x4e, 0x47]), { headers: { "content-type": "image/png" } }));
    await expect(run({ url: `${fake.base}/logo.png` })).rejects.toThrow(/^unsupported content type image\/png$/);
    const untyped = serve(() => new Response(new Uint8Array([1, 2, 3, 4]), { headers: { "content-type": "application/octet-stream" } }));
    await expect(run({ url: `${untyped.base}/blob` })).rejects.toThrow(/^unsupported content type application\/octet-stream$/);
  });

  test("not http(s) or not a URL: invalid url", async () => {
    await expect(run({ url: "ftp://example.com/file" })).rejects.toThrow(/only http and https/);
    await expect(run({ url: "file:///etc/passwd" })).rejects.toThrow(/only http and https/);
    await expect(run({ url: "" })).rejects.toThrow(/invalid url/);
    await expect(run({})).rejects.toThrow(/invalid url/);
  });

  test("a server slower than timeout_ms: timed out", async () => {
    const fake = serve(async () => {
      await Bun.sleep(2000);
      return new Response("late", { headers: { "content-type": "text/plain" } });
    });
    const started = Date.now();
    await expect(webFetch.run({ url: `${fake.base}/slow` }, runContext({ config: { timeout_ms: 100 } }))).rejects.toThrow(/^timed out after 100 ms$/);
    expect(Date.now() - started).toBeLessThan(1500);
  });

  test("a body that stalls mid-way also hits the time limit", async () => {
    const fake = serve(
      () =>
        new Response(
          new ReadableStream({
            async start(controller) {
              controller.enqueue(new TextEncoder().encode("partial "));
              await Bun.sleep(2000);
              controller.close();
            },
          }),
          { headers: { "content-type": "text/plain" } },
        ),
    );
    await expect(webFetch.run({ url: `${fake.base}/stall` }, runContext({ config: { timeout_ms: 150 } }))).rejects.toThrow(/timed out after 150 ms/);
  });

  test("the request going away aborts the fetch (not reported as a timeout)", async () => {
    const fake = serve(async () => {
      await Bun.sleep(2000);
      return new Response("late");
    });
    const controller = new AbortController();
    const pending = webFetch.run({ url: `${fake.base}/slow` }, runContext({ signal: controller.signal }));
    setTimeout(() => controller.abort(new Error("client gone")), 50);
    const error = await pending.catch((e: Error) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as Error).message).not.toContain("timed out");
  });
});

describe("caps", () => {
  test("a body over max_bytes is cut there (truncated: true); the rest is not read", async () => {
    let sent = 0;
    const fake = serve(
      () =>
        new Response(
          new ReadableStream({
            // An endless body: only the cap makes the tool stop.
            pull(controller) {
              sent += 1024;
              controller.enqueue(new TextEncoder().encode("a".repeat(1023) + "\n"));
            },
          }),
          { headers: { "content-type": "text/plain" } },
        ),
    );
    const result = await run({ url: `${fake.base}/endless` }, runContext({ config: { max_bytes: 4096, default_max_content_tokens: 100_000 } }));
    expect(result.truncated).toBe(true);
    expect(result.content.length).toBe(4096);
    // The stream is endless: the tool stopped reading (the client buffers a few MB ahead of the reader).
    expect(sent).toBeLessThan(64 * 1024 * 1024);
  });

  test("max_content_tokens cuts the content to that many tokens (truncated: true)", async () => {
    const text = Array.from({ length: 400 }, (_, i) => `Sentence number ${i} says something.`).join(" ");
    const fake = serve(() => new Response(text, { headers: { "content-type": "text/plain" } }));
    const result = await run({ url: `${fake.base}/long.txt` }, runContext({ parameters: { max_content_tokens: 25 } }));
    expect(result.truncated).toBe(true);
    expect(countTokens(result.content)).toBeLessThanOrEqual(25);
    expect(countTokens(result.content)).toBeGreaterThanOrEqual(20);
    expect(text.startsWith(result.content)).toBe(true);
    const whole = await run({ url: `${fake.base}/long.txt` }, runContext({ parameters: { max_content_tokens: 100_000 } }));
    expect(whole).toMatchObject({ truncated: false, content: text });
  });

  test("special-token text is ordinary text to the counter", async () => {
    const text = `before <|endoftext|> after ${"filler ".repeat(50)}`;
    const fake = serve(() => new Response(text, { headers: { "content-type": "text/plain" } }));
    const result = await run({ url: `${fake.base}/special.txt` }, runContext({ parameters: { max_content_tokens: 8 } }));
    expect(result.truncated).toBe(true);
    expect(result.content.startsWith("before <|")).toBe(true);
  });

  test("over max_uses, and over the hard cap of 50 fetches, the call fails without fetching", async () => {
    const fake = serve(() => new Response("ok", { headers: { "content-type": "text/plain" } }));
    const url = `${fake.base}/x`;
    await expect(webFetch.run({ url }, runContext({ parameters: { max_uses: 3 }, previousUses: 3 }))).rejects.toThrow(/^max_uses_exceeded: .* at most 3 time/);
    await expect(webFetch.run({ url }, runContext({ previousUses: 50 }))).rejects.toThrow(/at most 50 time/);
    await expect(webFetch.run({ url }, runContext({ parameters: { max_uses: 100 }, previousUses: 50 }))).rejects.toThrow(/at most 50 time/);
    expect(fake.seen).toHaveLength(0);
    expect((await run({ url }, runContext({ parameters: { max_uses: 3 }, previousUses: 2 }))).content).toBe("ok");
  });
});

describe("domain filters", () => {
  test("blocked_domains and allowed_domains refuse before any request", async () => {
    const fake = serve(() => new Response("ok", { headers: { "content-type": "text/plain" } }));
    await expect(run({ url: `${fake.base}/x` }, runContext({ parameters: { blocked_domains: ["127.0.0.1"] } }))).rejects.toThrow(
      /^url not allowed by blocked_domains$/,
    );
    await expect(run({ url: `${fake.base}/x` }, runContext({ parameters: { allowed_domains: ["example.com"] } }))).rejects.toThrow(
      /^url not allowed by allowed_domains$/,
    );
    expect(fake.seen).toHaveLength(0);
    expect((await run({ url: `${fake.base}/x` }, runContext({ parameters: { allowed_domains: ["127.0.0.1"], blocked_domains: ["other.com"] } }))).content).toBe("ok");
  });

  test("redirects are followed hop by hop, each hop checked against the filters", async () => {
    const fake = serve((_request, url) => {
      if (url.pathname === "/moved") return new Response(null, { status: 301, headers: { location: "/final.txt" } });
      if (url.pathname === "/away") return new Response(null, { status: 302, headers: { location: `http://localhost:${url.port}/final.txt` } });
      if (url.pathname === "/loop") return new Response(null, { status: 302, headers: { location: "/loop" } });
      return new Response("landed", { headers: { "content-type": "text/plain" } });
    });
    const moved = await run({ url: `${fake.base}/moved` });
    expect(moved).toMatchObject({ url: `${fake.base}/moved`, final_url: `${fake.base}/final.txt`, content: "landed", title: "final.txt" });
    await expect(run({ url: `${fake.base}/away` }, runContext({ parameters: { blocked_domains: ["localhost"] } }))).rejects.toThrow(
      /^redirected to http:\/\/localhost:\d+\/final\.txt: url not allowed by blocked_domains$/,
    );
    await expect(run({ url: `${fake.base}/loop` })).rejects.toThrow(/too many redirects/);
  });
});

describe("declare, schemas, module", () => {
  function declaration(parameters: Record<string, unknown>): ToolDeclaration {
    return { parameters, config: {}, format: "responses", catalog: {} as ToolDeclaration["catalog"], helpers: runContext().helpers, field: "tools[0]" };
  }

  test("engines other than auto/service are refused as not supported; bad domains name their index", () => {
    for (const engine of ["native", "exa", "firecrawl", "parallel"]) {
      let error: unknown;
      try {
        webFetch.declare!(declaration({ engine }));
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(400);
      expect((error as GatewayError).message).toContain(`engine "${engine}" is not supported`);
      expect((error as GatewayError).metadata).toEqual({ field: "tools[0].parameters.engine" });
    }
    expect(() => webFetch.declare!(declaration({ engine: "auto" }))).not.toThrow();
    expect(() => webFetch.declare!(declaration({ engine: "service" }))).not.toThrow();
    expect(() => webFetch.declare!(declaration({}))).not.toThrow();
    expect(() => webFetch.declare!(declaration({ blocked_domains: ["ok.com", "bad domain!"] }))).toThrow('"bad domain!" is not a domain name');
  });

  test("parametersSchema accepts the documented parameters and rejects unknown keys and out-of-range values", () => {
    const check = TypeCompiler.Compile(parametersSchema);
    expect(check.Check({})).toBe(true);
    expect(check.Check({ engine: "service", max_uses: 1, max_content_tokens: 1, allowed_domains: ["a.com"], blocked_domains: ["b.com"] })).toBe(true);
    for (const bad of [
      { nope: true },
      { max_uses: 0 },
      { max_uses: 1.5 },
      { max_content_tokens: 0 },
      { engine: "openrouter" },
      { engine: "google" },
      { allowed_domains: [""] },
      { blocked_domains: Array.from({ length: 51 }, (_, i) => `d${i}.com`) },
    ]) {
      expect(check.Check(bad)).toBe(false);
    }
  });

  test("optionsSchema: all optional; unknown keys and out-of-range values refused", () => {
    const check = TypeCompiler.Compile(optionsSchema);
    expect(check.Check({})).toBe(true);
    expect(check.Check({ timeout_ms: 15000, max_bytes: 5 * 1024 * 1024, user_agent: "Bot/1", default_max_content_tokens: 20000 })).toBe(true);
    for (const bad of [{ timeout: 1 }, { timeout_ms: 50 }, { max_bytes: 10 }, { user_agent: "" }, { default_max_content_tokens: 0 }]) {
      expect(check.Check(bad)).toBe(false);
    }
  });

  test("is a branded tool with the usage counter and model arguments", () => {
    expect(moduleBrand(webFetch)?.kind).toBe("tool");
    expect(webFetch.id).toBe("service:web_fetch");
    expect(webFetch.usageCounter).toBe("web_fetch_requests");
    expect(webFetch.argumentsSchema).toMatchObject({ required: ["url"], properties: { url: { type: "string" } } });
  });
});
