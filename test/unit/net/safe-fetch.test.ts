/**
 * core/net/safe-fetch.ts over a recording fake fetch and a stubbed resolver: nothing here opens a socket. What is
 * refused, where the request goes (the checked IP, the real host in `Host` and the TLS server name), redirects.
 */
import { describe, expect, test } from "bun:test";
import { ConfigError } from "../../../core/config/load.ts";
import { createSafeFetch, NetworkPolicyError, type SafeFetchOptions } from "../../../core/net/safe-fetch.ts";

interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string | null;
  redirect: string | undefined;
  tls: unknown;
  init: Record<string, unknown>;
}

/** A fake fetch answering from `reply` (by the IP URL it was sent to), and a resolver answering from `dns`. */
function rig(options: {
  dns?: Record<string, string[]>;
  reply?: (sent: Sent, index: number) => Response | Promise<Response>;
  allowPrivate?: string[];
  maxRedirects?: number;
  resolve?: SafeFetchOptions["resolve"];
}) {
  const sent: Sent[] = [];
  const lookups: string[] = [];
  const fake = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const record = init as RequestInit & { tls?: unknown };
    const headers = Object.fromEntries(new Headers(init?.headers).entries());
    const body = init?.body == null ? null : await new Response(init.body).text();
    const entry: Sent = { url: String(input), method: init?.method ?? "GET", headers, body, redirect: init?.redirect, tls: record.tls, init: { ...record } };
    sent.push(entry);
    return (options.reply ?? (() => new Response("ok")))(entry, sent.length - 1);
  };
  const safeFetch = createSafeFetch({
    allowPrivate: options.allowPrivate ?? [],
    fetch: fake,
    resolve:
      options.resolve ??
      (async (hostname) => {
        lookups.push(hostname);
        const answer = options.dns?.[hostname];
        if (!answer) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: "ENOTFOUND" });
        return answer;
      }),
    ...(options.maxRedirects !== undefined ? { maxRedirects: options.maxRedirects } : {}),
  });
  return { safeFetch, sent, lookups };
}

async function refusal(promise: Promise<unknown>): Promise<NetworkPolicyError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NetworkPolicyError);
  return error as NetworkPolicyError;
}

const redirect = (location: string, status = 302) => new Response(null, { status, headers: { location } });

describe("where the request goes", () => {
  test("a name is resolved once and the request sent to the checked IP, the real host in Host", async () => {
    const { safeFetch, sent, lookups } = rig({ dns: { "example.com": ["93.184.215.14"] } });
    const res = await safeFetch("http://example.com:8080/a/b?c=d#frag", { headers: { accept: "text/html", host: "evil.internal" } });
    expect(await res.text()).toBe("ok");
    expect(lookups).toEqual(["example.com"]);
    expect(sent).toHaveLength(1);
    expect(sent[0]!.url).toBe("http://93.184.215.14:8080/a/b?c=d#frag");
    expect(sent[0]!.headers.host).toBe("example.com:8080");
    expect(sent[0]!.headers.accept).toBe("text/html");
    expect(sent[0]!.redirect).toBe("manual");
    expect(sent[0]!.tls).toBeUndefined();
    expect(res.url).toBe("http://example.com:8080/a/b?c=d#frag");
    expect(res.redirected).toBe(false);
  });

  test("https keeps the TLS server name (SNI, certificate check) on the real hostname", async () => {
    const { safeFetch, sent } = rig({ dns: { "example.com.": ["2606:2800:21f:cb07:6820:80da:af6b:8b2c"], "api.example.com": ["93.184.215.14"] } });
    await safeFetch("https://api.example.com/v1");
    expect(sent[0]!.url).toBe("https://93.184.215.14/v1");
    expect(sent[0]!.headers.host).toBe("api.example.com");
    expect(sent[0]!.tls).toEqual({ serverName: "api.example.com" });
    await safeFetch("https://example.com.:8443/");
    expect(sent[1]!.url).toBe("https://[2606:2800:21f:cb07:6820:80da:af6b:8b2c]:8443/");
    expect(sent[1]!.headers.host).toBe("example.com.:8443");
    expect(sent[1]!.tls).toEqual({ serverName: "example.com" });
  });

  test("an IP-literal host skips DNS and keeps its own certificate check", async () => {
    const { safeFetch, sent, lookups } = rig({});
    await safeFetch("https://1.1.1.1/dns-query");
    await safeFetch("http://[2606:4700:4700::1111]:8080/");
    expect(lookups).toEqual([]);
    expect(sent.map((s) => s.url)).toEqual(["https://1.1.1.1/dns-query", "http://[2606:4700:4700::1111]:8080/"]);
    expect(sent[0]!.tls).toBeUndefined();
  });

  test("Bun's own options that would bypass the policy are dropped (unix socket, proxy, tls)", async () => {
    const { safeFetch, sent } = rig({ dns: { "example.com": ["93.184.215.14"] } });
    await safeFetch("https://example.com/", { unix: "/var/run/docker.sock", proxy: "http://127.0.0.1:3128", tls: { rejectUnauthorized: false }, verbose: true } as RequestInit);
    expect(Object.keys(sent[0]!.init).sort()).toEqual(["body", "headers", "method", "redirect", "tls"]);
    expect(sent[0]!.tls).toEqual({ serverName: "example.com" });
  });

  test("a Request input gives its method, headers and body", async () => {
    const { safeFetch, sent } = rig({ dns: { "example.com": ["93.184.215.14"] } });
    await safeFetch(new Request("http://example.com/search", { method: "POST", headers: { "x-api-key": "k" }, body: "q=1" }));
    expect(sent[0]).toMatchObject({ url: "http://93.184.215.14/search", method: "POST", body: "q=1" });
    expect(sent[0]!.headers["x-api-key"]).toBe("k");
  });

  test("a connection refused on one address tries the next; other failures do not", async () => {
    const refused = () => Promise.reject(Object.assign(new TypeError("Unable to connect"), { code: "ECONNREFUSED" }));
    const { safeFetch, sent } = rig({
      dns: { "dual.example": ["2606:4700::1", "93.184.215.14"] },
      reply: (s) => (s.url.includes("[") ? refused() : new Response("v4")),
    });
    expect(await (await safeFetch("http://dual.example/")).text()).toBe("v4");
    expect(sent.map((s) => s.url)).toEqual(["http://[2606:4700::1]/", "http://93.184.215.14/"]);

    const reset = rig({ dns: { "dual.example": ["2606:4700::1", "93.184.215.14"] }, reply: () => Promise.reject(Object.assign(new Error("reset"), { code: "ECONNRESET" })) });
    await expect(reset.safeFetch("http://dual.example/")).rejects.toThrow("reset");
    expect(reset.sent).toHaveLength(1);
  });
});

describe("what is refused", () => {
  test.each(["file:///etc/passwd", "ftp://example.com/x", "data:text/plain,hello", "javascript:alert(1)", "ws://example.com/", "gopher://127.0.0.1:6379/_INFO", "blob:http://example.com/x"])(
    "%s: only http and https",
    async (url) => {
      const { safeFetch, sent } = rig({ dns: { "example.com": ["93.184.215.14"] } });
      const error = await refusal(safeFetch(url));
      expect(error.reason).toMatch(/^scheme ".+:" is not allowed \(http and https only\)$/);
      expect(sent).toHaveLength(0);
    },
  );

  test("a relative or malformed URL", async () => {
    const { safeFetch } = rig({});
    expect((await refusal(safeFetch("/relative"))).reason).toBe("not a valid absolute URL");
    expect((await refusal(safeFetch("http://1.2.3.08/"))).reason).toBe("not a valid absolute URL");
  });

  test.each([
    ["http://127.0.0.1/", "private address 127.0.0.1 (loopback)"],
    ["http://2130706434/", "private address 127.0.0.2 (loopback)"],
    ["http://0177.0.0.2/", "private address 127.0.0.2 (loopback)"],
    ["http://0x7f000002/", "private address 127.0.0.2 (loopback)"],
    ["http://127.2/", "private address 127.0.0.2 (loopback)"],
    ["http://[::1]/", "private address ::1 (loopback)"],
    ["http://[::ffff:127.0.0.1]/", "private address 127.0.0.1 (loopback)"],
    ["http://[::ffff:7f00:1]/", "private address 127.0.0.1 (loopback)"],
    ["http://[::127.0.0.1]/", "reserved address ::7f00:1 (IPv4-compatible, embeds 127.0.0.1 (loopback))"],
    ["http://[64:ff9b::10.0.0.1]/", "private address 64:ff9b::a00:1 (NAT64, embeds 10.0.0.1 (private))"],
    ["http://[2002:a9fe:a9fe::]/", "private address 2002:a9fe:a9fe:: (6to4, embeds 169.254.169.254 (cloud metadata))"],
    ["http://169.254.169.254/latest/meta-data/", "private address 169.254.169.254 (cloud metadata)"],
    ["http://[fd00:ec2::254]/", "private address fd00:ec2::254 (cloud metadata)"],
    ["http://0.0.0.0:8080/", "private address 0.0.0.0 (unspecified)"],
    ["http://0/", "private address 0.0.0.0 (unspecified)"],
    ["http://[::]/", "private address :: (unspecified)"],
    ["http://[fe80::1]/", "private address fe80::1 (link-local)"],
    ["http://192.168.1.1/", "private address 192.168.1.1 (private)"],
    ["http://100.64.0.1/", "private address 100.64.0.1 (CGNAT)"],
    ["http://224.0.0.1/", "reserved address 224.0.0.1 (multicast)"],
    ["http://198.18.0.1/", "reserved address 198.18.0.1 (benchmarking)"],
    ["https://10.0.0.1:443/", "private address 10.0.0.1 (private)"],
  ])("%s: %s", async (url, reason) => {
    const { safeFetch, sent, lookups } = rig({});
    const error = await refusal(safeFetch(url));
    expect(error.reason).toBe(reason);
    expect(error.message).toContain(reason);
    expect(sent).toHaveLength(0);
    expect(lookups).toHaveLength(0);
  });

  test("a name resolving to a refused address, even one among public ones", async () => {
    const { safeFetch, sent } = rig({ dns: { "internal.example": ["10.1.2.3"], "mixed.example": ["93.184.215.14", "127.0.0.1"], "mapped.example": ["::ffff:169.254.169.254"], "localhost": ["127.0.0.1", "::1"] } });
    expect((await refusal(safeFetch("http://internal.example/"))).reason).toBe("internal.example resolves to private address 10.1.2.3 (private)");
    expect((await refusal(safeFetch("http://mixed.example/"))).reason).toBe("mixed.example resolves to private address 127.0.0.1 (loopback)");
    expect((await refusal(safeFetch("http://mapped.example/"))).reason).toBe("mapped.example resolves to private address 169.254.169.254 (cloud metadata)");
    expect((await refusal(safeFetch("http://LOCALHOST:9/"))).reason).toBe("localhost resolves to private address 127.0.0.1 (loopback)");
    expect(sent).toHaveLength(0);
  });

  test("a resolver answer in a numeric form is read as the address it is", async () => {
    const { safeFetch, sent } = rig({ dns: { "odd.example": ["0x7f.1"] } });
    expect((await refusal(safeFetch("http://odd.example/"))).reason).toBe("odd.example resolves to private address 127.0.0.1 (loopback)");
    expect(sent).toHaveLength(0);
  });

  test("DNS failures reject with a plain error naming the host", async () => {
    const { safeFetch } = rig({ dns: { "empty.example": [] } });
    await expect(safeFetch("http://nowhere.example/")).rejects.toThrow("could not resolve nowhere.example: getaddrinfo ENOTFOUND nowhere.example");
    await expect(safeFetch("http://empty.example/")).rejects.toThrow("could not resolve empty.example: no addresses");
  });

  test("the allow-list opens its ranges, nothing more", async () => {
    const { safeFetch, sent } = rig({ allowPrivate: ["127.0.0.1/32", "10.0.0.0/8"], dns: { "svc.internal": ["10.9.8.7"] } });
    await safeFetch("http://127.0.0.1:8080/");
    await safeFetch("http://2130706433:8080/");
    await safeFetch("http://svc.internal/health");
    expect(sent.map((s) => s.url)).toEqual(["http://127.0.0.1:8080/", "http://127.0.0.1:8080/", "http://10.9.8.7/health"]);
    expect((await refusal(safeFetch("http://127.0.0.2/"))).reason).toBe("private address 127.0.0.2 (loopback)");
  });

  test("a bad allow-list entry is a ConfigError naming it", () => {
    expect(() => createSafeFetch({ allowPrivate: ["127.0.0.1/32", "300.0.0.0/8"] })).toThrow(ConfigError);
    expect(() => createSafeFetch({ allowPrivate: ["127.0.0.1/32", "300.0.0.0/8"] })).toThrow('invalid config field "network.allow_private[1]"');
  });
});

describe("redirects", () => {
  test("followed by hand, each target resolved and checked; the final response names the final URL", async () => {
    const { safeFetch, sent, lookups } = rig({
      dns: { "a.example": ["93.184.215.14"], "b.example": ["2606:4700::6810:84e5"] },
      reply: (s, i) => (i === 0 ? redirect("/next?x=1", 301) : i === 1 ? redirect("https://b.example/final", 307) : new Response("done")),
    });
    const res = await safeFetch("http://a.example/start");
    expect(await res.text()).toBe("done");
    expect(res.url).toBe("https://b.example/final");
    expect(res.redirected).toBe(true);
    expect(sent.map((s) => [s.url, s.headers.host])).toEqual([
      ["http://93.184.215.14/start", "a.example"],
      ["http://93.184.215.14/next?x=1", "a.example"],
      ["https://[2606:4700::6810:84e5]/final", "b.example"],
    ]);
    expect(sent[2]!.tls).toEqual({ serverName: "b.example" });
    expect(lookups).toEqual(["a.example", "a.example", "b.example"]);
  });

  test.each([
    ["http://127.0.0.1:6379/", "private address 127.0.0.1 (loopback)"],
    ["http://2130706433/", "private address 127.0.0.1 (loopback)"],
    ["http://[::ffff:169.254.169.254]/latest", "private address 169.254.169.254 (cloud metadata)"],
    ["http://rebound.example/", "rebound.example resolves to private address 192.168.0.10 (private)"],
    ["file:///etc/passwd", 'scheme "file:" is not allowed (http and https only)'],
    ["gopher://93.184.215.14/", 'scheme "gopher:" is not allowed (http and https only)'],
  ])("a redirect to %s is refused", async (location, reason) => {
    const { safeFetch, sent } = rig({ dns: { "a.example": ["93.184.215.14"], "rebound.example": ["192.168.0.10"] }, reply: () => redirect(location) });
    const error = await refusal(safeFetch("http://a.example/"));
    expect(error.reason).toBe(reason);
    expect(error.url).toBe(new URL(location).href);
    expect(sent).toHaveLength(1);
  });

  test("at most 5 by default (or maxRedirects), then refused", async () => {
    const loop = rig({ dns: { "a.example": ["93.184.215.14"] }, reply: (_s, i) => redirect(`/hop${i + 1}`) });
    expect((await refusal(loop.safeFetch("http://a.example/"))).reason).toBe("more than 5 redirects");
    expect(loop.sent).toHaveLength(6);
    const five = rig({ dns: { "a.example": ["93.184.215.14"] }, reply: (_s, i) => (i < 5 ? redirect(`/hop${i + 1}`) : new Response("ok")) });
    expect(await (await five.safeFetch("http://a.example/")).text()).toBe("ok");
    const none = rig({ maxRedirects: 0, dns: { "a.example": ["93.184.215.14"] }, reply: () => redirect("/x") });
    expect((await refusal(none.safeFetch("http://a.example/"))).reason).toBe("more than 0 redirects");
  });

  test("303 and POST on 301/302 become GET without the body; 307/308 send it again", async () => {
    for (const [status, method, body] of [
      [303, "GET", null],
      [302, "GET", null],
      [301, "GET", null],
      [307, "POST", "payload"],
      [308, "POST", "payload"],
    ] as const) {
      const { safeFetch, sent } = rig({ dns: { "a.example": ["93.184.215.14"] }, reply: (_s, i) => (i === 0 ? redirect("/after", status) : new Response("ok")) });
      await safeFetch("http://a.example/form", { method: "POST", body: "payload", headers: { "content-type": "text/plain" } });
      expect(sent[1]).toMatchObject({ method, body });
      expect(sent[1]!.headers["content-type"]).toBe(body === null ? undefined : "text/plain");
    }
  });

  test("a streamed body cannot be sent again: a 307 then rejects", async () => {
    const { safeFetch } = rig({ dns: { "a.example": ["93.184.215.14"] }, reply: () => redirect("/again", 307) });
    const stream = new ReadableStream({ start: (c) => (c.enqueue(new TextEncoder().encode("x")), c.close()) });
    await expect(safeFetch("http://a.example/", { method: "PUT", body: stream })).rejects.toThrow("a streamed request body cannot be sent again");
  });

  test("credentials stay with their origin", async () => {
    const { safeFetch, sent } = rig({
      dns: { "a.example": ["93.184.215.14"], "b.example": ["93.184.215.15"] },
      reply: (_s, i) => (i === 0 ? redirect("/same") : i === 1 ? redirect("http://b.example/other") : new Response("ok")),
    });
    await safeFetch("http://a.example/", { headers: { authorization: "Bearer secret", cookie: "s=1", "x-keep": "yes" } });
    expect(sent[1]!.headers.authorization).toBe("Bearer secret");
    expect(sent[2]!.headers.authorization).toBeUndefined();
    expect(sent[2]!.headers.cookie).toBeUndefined();
    expect(sent[2]!.headers["x-keep"]).toBe("yes");
  });

  test('redirect: "manual" returns the 3xx as is; "error" rejects', async () => {
    const { safeFetch, sent } = rig({ dns: { "a.example": ["93.184.215.14"] }, reply: () => redirect("http://127.0.0.1/") });
    const res = await safeFetch("http://a.example/", { redirect: "manual" });
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe("http://127.0.0.1/");
    expect(res.url).toBe("http://a.example/");
    await expect(safeFetch("http://a.example/", { redirect: "error" })).rejects.toThrow('was redirected (redirect: "error")');
    expect(sent).toHaveLength(2);
  });

  test("a redirect status without Location is the answer", async () => {
    const { safeFetch } = rig({ dns: { "a.example": ["93.184.215.14"] }, reply: () => new Response("see other", { status: 302 }) });
    const res = await safeFetch("http://a.example/");
    expect(res.status).toBe(302);
    expect(await res.text()).toBe("see other");
  });
});

describe("the signal", () => {
  test("reaches the fetch", async () => {
    const controller = new AbortController();
    const { safeFetch, sent } = rig({ dns: { "a.example": ["93.184.215.14"] } });
    await safeFetch("http://a.example/", { signal: controller.signal });
    expect(sent[0]!.init.signal).toBe(controller.signal);
  });

  test("an aborted signal rejects before any lookup; an abort during a slow lookup rejects at once", async () => {
    const { safeFetch, lookups } = rig({ dns: { "a.example": ["93.184.215.14"] } });
    await expect(safeFetch("http://a.example/", { signal: AbortSignal.abort() })).rejects.toMatchObject({ name: "AbortError" });
    expect(lookups).toHaveLength(0);

    const never = rig({ resolve: () => new Promise<string[]>(() => {}) });
    const controller = new AbortController();
    const pending = never.safeFetch("http://slow.example/", { signal: controller.signal });
    setTimeout(() => controller.abort(), 5);
    await expect(pending).rejects.toMatchObject({ name: "AbortError" });
    expect(never.sent).toHaveLength(0);
  });
});
