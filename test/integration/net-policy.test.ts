/**
 * The network policy of server-side fetches (core/net/safe-fetch.ts) over real sockets, as the gateway wires it
 * (`deps.serverFetch`, config `network.allow_private: ["127.0.0.1/32"]`, DNS stubbed through `resolveHost`).
 * An allowed server listens on 127.0.0.1; canaries on 127.0.0.2 and ::1 (not allowed) count every request they
 * get, and must get none. Nothing here aims at an address off this machine.
 */
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pino from "pino";
import { createGateway, type Gateway } from "../../core/bootstrap.ts";
import { buildConfig, ConfigError } from "../../core/config/load.ts";
import { createSafeFetch, NetworkPolicyError } from "../../core/net/safe-fetch.ts";
import type { FetchFunction } from "../../core/registry/helpers.ts";

type Server = ReturnType<typeof Bun.serve>;

interface Seen {
  host: string | null;
  path: string;
}

let allowed: Server;
const allowedSeen: Seen[] = [];
let canary: Server;
let canaryHits = 0;
let canary6: Server | undefined;
let canary6Hits = 0;
let gateway: Gateway;
let serverFetch: FetchFunction;
/** What the stubbed DNS answers; `rebind.test` answers 127.0.0.1 once, then the canary (a rebinding attacker). */
const dns: Record<string, string[]> = {};
const lookups: string[] = [];
let rebindAnswers = 0;

async function resolveHost(hostname: string): Promise<string[]> {
  lookups.push(hostname);
  if (hostname === "rebind.test") return rebindAnswers++ === 0 ? ["127.0.0.1"] : ["127.0.0.2"];
  const answer = dns[hostname];
  if (!answer) throw new Error(`getaddrinfo ENOTFOUND ${hostname}`);
  return answer;
}

beforeAll(async () => {
  canary = Bun.serve({
    hostname: "127.0.0.2",
    port: 0,
    fetch: () => {
      canaryHits++;
      return new Response("canary reached");
    },
  });
  try {
    canary6 = Bun.serve({
      hostname: "::1",
      port: 0,
      fetch: () => {
        canary6Hits++;
        return new Response("canary reached");
      },
    });
  } catch {
    canary6 = undefined; // no IPv6 loopback here: refusal is still asserted
  }
  allowed = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    fetch: (request) => {
      const url = new URL(request.url);
      allowedSeen.push({ host: request.headers.get("host"), path: url.pathname });
      const to = url.searchParams.get("to");
      if (url.pathname === "/redirect" && to) return new Response(null, { status: 302, headers: { location: to } });
      return new Response(`allowed ${url.pathname}`);
    },
  });
  dns["canary.test"] = ["127.0.0.2"];
  dns["both.test"] = ["127.0.0.1", "127.0.0.2"];
  dns["allowed.test"] = ["127.0.0.1"];
  const config = buildConfig({ network: { allow_private: ["127.0.0.1/32"] } }, { DATABASE_URL: "sqlite://:memory:", LOG_LEVEL: "silent" }, process.cwd());
  gateway = await createGateway(config, { logger: pino({ level: "silent" }), resolveHost });
  serverFetch = gateway.deps.serverFetch;
});

afterAll(async () => {
  await gateway?.close();
  allowed?.stop(true);
  canary?.stop(true);
  canary6?.stop(true);
  // The point of every test below: the canaries never saw a request.
  expect(canaryHits).toBe(0);
  expect(canary6Hits).toBe(0);
});

async function refused(url: string, init?: RequestInit): Promise<NetworkPolicyError> {
  const error = await serverFetch(url, init).then(
    (res) => new Error(`not refused: ${res.status}`),
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(NetworkPolicyError);
  return error as NetworkPolicyError;
}

/** Opens and closes a TCP connection (no HTTP request): whether something listens there. */
async function listening(hostname: string, port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname, port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

describe("deps.serverFetch", () => {
  test("the canaries listen (so zero requests means refused, not unreachable)", async () => {
    expect(await listening("127.0.0.2", canary.port!)).toBe(true);
    if (canary6) expect(await listening("::1", canary6.port!)).toBe(true);
    expect(canaryHits).toBe(0);
  });

  test("an allowed address is fetched", async () => {
    const res = await serverFetch(`http://127.0.0.1:${allowed.port}/hello`);
    expect(await res.text()).toBe("allowed /hello");
    expect(res.url).toBe(`http://127.0.0.1:${allowed.port}/hello`);
  });

  test.each([
    ["127.0.0.2", "private address 127.0.0.2 (loopback)"],
    ["2130706434", "private address 127.0.0.2 (loopback)"],
    ["0177.0.0.2", "private address 127.0.0.2 (loopback)"],
    ["0x7f000002", "private address 127.0.0.2 (loopback)"],
    ["0x7f.0.0.2", "private address 127.0.0.2 (loopback)"],
    ["127.0.2", "private address 127.0.0.2 (loopback)"],
    ["[::ffff:127.0.0.2]", "private address 127.0.0.2 (loopback)"],
  ])("the canary as http://%s is refused", async (host, reason) => {
    const error = await refused(`http://${host}:${canary.port}/`);
    expect(error.reason).toBe(reason);
    expect(canaryHits).toBe(0);
  });

  test("http://[::1]:PORT/ is refused", async () => {
    const port = canary6?.port ?? canary.port;
    expect((await refused(`http://[::1]:${port}/`)).reason).toBe("private address ::1 (loopback)");
    expect(canary6Hits).toBe(0);
  });

  test("a redirect from the allowed server to the canary is refused, in any form", async () => {
    for (const target of [`http://127.0.0.2:${canary.port}/`, `http://2130706434:${canary.port}/`, `http://canary.test:${canary.port}/`]) {
      const before = allowedSeen.length;
      const error = await refused(`http://127.0.0.1:${allowed.port}/redirect?to=${encodeURIComponent(target)}`);
      expect(error.reason).toMatch(/private address 127\.0\.0\.2 \(loopback\)$/);
      expect(allowedSeen.length).toBe(before + 1);
    }
    expect(canaryHits).toBe(0);
  });

  test("a redirect within the allow-list is followed", async () => {
    const res = await serverFetch(`http://127.0.0.1:${allowed.port}/redirect?to=${encodeURIComponent(`http://allowed.test:${allowed.port}/landed`)}`);
    expect(await res.text()).toBe("allowed /landed");
    expect(res.url).toBe(`http://allowed.test:${allowed.port}/landed`);
    expect(res.redirected).toBe(true);
    expect(allowedSeen.at(-1)).toEqual({ host: `allowed.test:${allowed.port}`, path: "/landed" });
  });

  test("a hostname whose DNS answer is the canary is refused; so is one with the canary among its answers", async () => {
    expect((await refused(`http://canary.test:${canary.port}/`)).reason).toBe("canary.test resolves to private address 127.0.0.2 (loopback)");
    expect((await refused(`http://both.test:${canary.port}/`)).reason).toBe("both.test resolves to private address 127.0.0.2 (loopback)");
    expect(canaryHits).toBe(0);
  });

  test("DNS rebinding: the request goes to the address that was checked, the name kept in Host", async () => {
    const before = lookups.filter((h) => h === "rebind.test").length;
    // The stub answers 127.0.0.1 now and the canary on any later lookup: a second resolution would reach it.
    // `.test` names do not resolve on this machine, so success also shows Bun's fetch never looked the name up.
    const res = await serverFetch(`http://rebind.test:${allowed.port}/rebind`);
    expect(await res.text()).toBe("allowed /rebind");
    expect(allowedSeen.at(-1)).toEqual({ host: `rebind.test:${allowed.port}`, path: "/rebind" });
    expect(res.url).toBe(`http://rebind.test:${allowed.port}/rebind`);
    expect(lookups.filter((h) => h === "rebind.test").length).toBe(before + 1);
    // The next fetch of the name gets the rebound answer, checks it, and refuses it.
    expect((await refused(`http://rebind.test:${canary.port}/`)).reason).toBe("rebind.test resolves to private address 127.0.0.2 (loopback)");
    expect(canaryHits).toBe(0);
  });

  test.each(["file:///etc/passwd", `ftp://127.0.0.1:${21}/`, "data:text/plain,hello", "ws://127.0.0.1/"])("%s is refused", async (url) => {
    expect((await refused(url)).reason).toMatch(/^scheme "[a-z]+:" is not allowed \(http and https only\)$/);
  });

  test("a bad network.allow_private entry stops start-up with a ConfigError naming it", async () => {
    const config = buildConfig({ network: { allow_private: ["127.0.0.1/32", "127.0.0.1/8"] } }, { DATABASE_URL: "sqlite://:memory:", LOG_LEVEL: "silent" }, process.cwd());
    const error = await createGateway(config, { logger: pino({ level: "silent" }) }).then(
      (g) => g.close().then(() => undefined),
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as Error).message).toBe(
      'invalid config field "network.allow_private[1]": "127.0.0.1/8" is not an IP address or CIDR range (bits set past the prefix: did you mean "127.0.0.0/8"?)',
    );
  });
});

describe("https pinned to the checked address", () => {
  const openssl = Bun.which("openssl");
  let dir = "";
  let cert = "";
  let key = "";
  let tlsServer: Server | undefined;
  const tlsSeen: Seen[] = [];

  beforeAll(() => {
    if (!openssl) {
      console.warn("net-policy https tests skipped: openssl is not installed");
      return;
    }
    dir = mkdtempSync(join(tmpdir(), "net-policy-tls-"));
    const result = Bun.spawnSync([
      openssl,
      "req",
      "-x509",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-days",
      "1",
      "-subj",
      "/CN=good.test",
      "-addext",
      "subjectAltName=DNS:good.test",
      "-keyout",
      join(dir, "key.pem"),
      "-out",
      join(dir, "cert.pem"),
    ]);
    if (result.exitCode !== 0) throw new Error(`openssl failed: ${result.stderr.toString()}`);
    cert = readFileSync(join(dir, "cert.pem"), "utf8");
    key = readFileSync(join(dir, "key.pem"), "utf8");
    tlsServer = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      tls: { cert, key },
      fetch: (request) => {
        tlsSeen.push({ host: request.headers.get("host"), path: new URL(request.url).pathname });
        return new Response("secure");
      },
    });
  });
  afterAll(() => {
    tlsServer?.stop(true);
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  /** Bun's fetch trusting the test certificate, everything else (the server name) as the policy sets it. */
  function trustingFetch(): FetchFunction {
    const bunFetch = globalThis.fetch;
    const withCa: FetchFunction = (input, init) => {
      const tls = (init as { tls?: object } | undefined)?.tls;
      return bunFetch(input, { ...init, tls: { ...tls, ca: cert } } as RequestInit);
    };
    return createSafeFetch({
      allowPrivate: ["127.0.0.1/32"],
      resolve: async (hostname) => (hostname.endsWith(".test") ? ["127.0.0.1"] : Promise.reject(new Error("ENOTFOUND"))),
      fetch: withCa,
    });
  }

  test.skipIf(!openssl)("the certificate is checked against the real hostname, not the IP connected to", async () => {
    const safeFetch = trustingFetch();
    const res = await safeFetch(`https://good.test:${tlsServer!.port}/one`);
    expect(await res.text()).toBe("secure");
    expect(tlsSeen.at(-1)).toEqual({ host: `good.test:${tlsServer!.port}`, path: "/one" });
    expect(res.url).toBe(`https://good.test:${tlsServer!.port}/one`);
  });

  test.skipIf(!openssl)("another name on the same address is refused by TLS, even after a verified keep-alive connection", async () => {
    const safeFetch = trustingFetch();
    await (await safeFetch(`https://good.test:${tlsServer!.port}/warm`)).text();
    const seen = tlsSeen.length;
    const error = await safeFetch(`https://evil.test:${tlsServer!.port}/steal`).then(
      () => undefined,
      (e: unknown) => e as { code?: string },
    );
    expect(error?.code).toBe("ERR_TLS_CERT_ALTNAME_INVALID");
    expect(tlsSeen.length).toBe(seen);
    // And the verified name still works afterwards.
    expect(await (await safeFetch(`https://good.test:${tlsServer!.port}/again`)).text()).toBe("secure");
  });
});
