/** core/upstream-http/one-shot.ts: which client takes a one-shot call (alone, with company, past the limit); the cap. */
import { describe, expect, test } from "bun:test";
import { BUN_FETCH_DEFAULT_CAP, bunFetchCap, createOneShotFetch } from "../../../core/upstream-http/one-shot.ts";

/** A fetch that records its calls and answers only when the test says so. */
function heldFetch(name: string) {
  const calls: Array<{ url: string; init: RequestInit }> = [];
  const pending: Array<{ resolve(response: Response): void; reject(error: Error): void }> = [];
  const fetchFn = (input: string | URL | Request, init: RequestInit = {}) => {
    calls.push({ url: String(input), init });
    return new Promise<Response>((resolve, reject) => pending.push({ resolve, reject }));
  };
  return {
    fetch: fetchFn,
    calls,
    answer: () => pending.shift()!.resolve(new Response(name)),
    fail: () => pending.shift()!.reject(new Error(`${name} failed`)),
  };
}

describe("createOneShotFetch", () => {
  test("a call alone goes to our client; calls with company to Bun's fetch up to the limit, then to ours", async () => {
    const bun = heldFetch("bun");
    const own = heldFetch("own");
    const oneShot = createOneShotFetch({ bunFetch: bun.fetch, own: own.fetch, limit: 2 });
    const alone = oneShot("http://up/1", { method: "POST" });
    const second = oneShot("http://up/2", { method: "POST" });
    const third = oneShot("http://up/3", { method: "POST" });
    const fourth = oneShot("http://up/4", { method: "POST" });
    expect(own.calls.map((c) => c.url)).toEqual(["http://up/1", "http://up/4"]);
    expect(bun.calls.map((c) => c.url)).toEqual(["http://up/2", "http://up/3"]);
    expect(oneShot.inFlight()).toBe(2);

    bun.answer();
    expect(await (await second).text()).toBe("bun");
    expect(oneShot.inFlight()).toBe(1);
    // A slot is free again and the call still has company: Bun's fetch.
    void oneShot("http://up/5");
    expect(bun.calls.map((c) => c.url)).toEqual(["http://up/2", "http://up/3", "http://up/5"]);

    own.answer();
    own.answer();
    expect(await (await alone).text()).toBe("own");
    expect(await (await fourth).text()).toBe("own");
    bun.answer();
    await third;
    bun.answer();
    await Bun.sleep(0);
    expect(oneShot.inFlight()).toBe(0);
    // Everything answered: the next call is alone again.
    void oneShot("http://up/6");
    expect(own.calls.at(-1)!.url).toBe("http://up/6");
  });

  test("a failed call gives its slot back and still fails for the caller", async () => {
    const bun = heldFetch("bun");
    const own = heldFetch("own");
    const oneShot = createOneShotFetch({ bunFetch: bun.fetch, own: own.fetch, limit: 1 });
    const alone = oneShot("http://up/1");
    const failing = oneShot("http://up/2");
    bun.fail();
    await expect(failing).rejects.toThrow("bun failed");
    expect(oneShot.inFlight()).toBe(0);
    void oneShot("http://up/3");
    expect(bun.calls.map((c) => c.url)).toEqual(["http://up/2", "http://up/3"]);
    own.fail();
    await expect(alone).rejects.toThrow("own failed");
  });

  test("a fetch that throws at once gives its slot back", async () => {
    const own = heldFetch("own");
    const oneShot = createOneShotFetch({
      bunFetch: () => {
        throw new TypeError("bad input");
      },
      own: own.fetch,
      limit: 1,
    });
    void oneShot("http://up/1");
    await expect(oneShot("http://up/2")).rejects.toThrow("bad input");
    expect(oneShot.inFlight()).toBe(0);
  });

  test("redirects are returned, not followed, unless the caller chose otherwise (as by our own client)", () => {
    const bun = heldFetch("bun");
    const oneShot = createOneShotFetch({ bunFetch: bun.fetch, own: heldFetch("own").fetch, limit: 4 });
    const signal = new AbortController().signal;
    void oneShot("http://up/alone");
    void oneShot("http://up/1", { method: "POST", body: "{}", signal });
    void oneShot("http://up/2", { redirect: "follow" });
    expect(bun.calls[0]!.init).toEqual({ method: "POST", body: "{}", signal, redirect: "manual" });
    expect(bun.calls[1]!.init.redirect).toBe("follow");
  });
});

describe("bunFetchCap", () => {
  test("BUN_CONFIG_MAX_HTTP_REQUESTS when it is a positive integer, else Bun's default", () => {
    expect(bunFetchCap({ BUN_CONFIG_MAX_HTTP_REQUESTS: "4096" })).toBe(4096);
    expect(bunFetchCap({})).toBe(BUN_FETCH_DEFAULT_CAP);
    expect(BUN_FETCH_DEFAULT_CAP).toBe(256);
    for (const bad of ["", "0", "-5", "1.5", "many"]) expect(bunFetchCap({ BUN_CONFIG_MAX_HTTP_REQUESTS: bad })).toBe(256);
  });
});
