/**
 * core/upstream-http/response-parser.ts: the incremental HTTP/1.1 response parser. Every response is fed whole, split
 * in two at every byte boundary, and byte by byte: the head, the body, the end (and whether the connection may be
 * reused) or the error must be the same however the socket happened to cut the bytes.
 */
import { describe, expect, test } from "bun:test";
import { MAX_HEAD_BYTES, ResponseParseError, ResponseParser, type ResponseHead } from "../../../core/upstream-http/response-parser.ts";

const encoder = new TextEncoder();
const latin1 = new TextDecoder("latin1");

/** What one parse produced, in a shape `toEqual` can compare across splits. */
interface Outcome {
  heads: ResponseHead[];
  /** The body, decoded as latin1 (one char per byte) so any bytes compare exactly. */
  body: string;
  /** `reusable` of each `end` call (so a double end shows up). */
  ends: boolean[];
  /** Body bytes handed on after `end` (must stay 0). */
  bodyAfterEnd: number;
  error?: { code: string; message: string };
}

interface FeedOptions {
  isHead?: boolean;
  /** Call `close()` after the last push (the connection closed). */
  close?: boolean;
}

function feed(pieces: Uint8Array[], options: FeedOptions = {}): Outcome {
  const outcome: Outcome = { heads: [], body: "", ends: [], bodyAfterEnd: 0 };
  const parser = new ResponseParser(
    {
      head: (head) => outcome.heads.push(head),
      body: (bytes) => {
        if (outcome.ends.length > 0) outcome.bodyAfterEnd += bytes.length;
        outcome.body += latin1.decode(bytes);
      },
      end: (reusable) => outcome.ends.push(reusable),
    },
    options.isHead ?? false,
  );
  try {
    for (const piece of pieces) parser.push(piece);
    if (options.close) parser.close();
  } catch (thrown) {
    if (!(thrown instanceof ResponseParseError)) throw thrown;
    outcome.error = { code: thrown.code, message: thrown.message };
  }
  return outcome;
}

const bytesOf = (wire: string | Uint8Array): Uint8Array => (typeof wire === "string" ? encoder.encode(wire) : wire);

/** Every way of cutting `wire` this suite tries: whole, in two at every boundary (incl. an empty piece), byte by byte. */
function* splits(bytes: Uint8Array): Generator<{ label: string; pieces: Uint8Array[] }> {
  yield { label: "whole", pieces: [bytes] };
  for (let at = 0; at <= bytes.length; at++) yield { label: `split at ${at}`, pieces: [bytes.subarray(0, at), bytes.subarray(at)] };
  yield { label: "byte by byte", pieces: Array.from(bytes, (_, i) => bytes.subarray(i, i + 1)) };
  // Three pieces around every pair of nearby boundaries catches a delimiter straddling two pushes.
  for (let at = 1; at + 2 < bytes.length; at++) {
    yield { label: `split at ${at} and ${at + 2}`, pieces: [bytes.subarray(0, at), bytes.subarray(at, at + 2), bytes.subarray(at + 2)] };
  }
}

/** Parses `wire` every way `splits` cuts it, asserts all outcomes are identical, and returns that outcome. */
function parseEveryWay(wire: string | Uint8Array, options: FeedOptions = {}): Outcome {
  const bytes = bytesOf(wire);
  // Each push gets its own copy, as a socket would hand over: a parser keeping a view past `push` would show up.
  const reference = feed([bytes.slice()], options);
  for (const { label, pieces } of splits(bytes)) {
    const outcome = feed(
      pieces.map((piece) => piece.slice()),
      options,
    );
    if (!Bun.deepEquals(outcome, reference)) {
      // One readable failure instead of thousands.
      expect({ label, outcome }).toEqual({ label, outcome: reference });
    }
  }
  return reference;
}

const CRLF = "\r\n";
const http = (...lines: string[]) => lines.join(CRLF);

/** A chunked body's wire form. */
const chunked = (...chunks: string[]) => chunks.map((chunk) => `${Buffer.byteLength(chunk).toString(16)}${CRLF}${chunk}${CRLF}`).join("") + `0${CRLF}${CRLF}`;

const SSE_EVENTS = [
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}\n\n`,
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{"content":"Héllo ✓"},"finish_reason":null}]}\n\n`,
  `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","created":1700000000,"model":"gpt-4o","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\n`,
  `data: [DONE]\n\n`,
];
const SSE_RESPONSE =
  http(
    "HTTP/1.1 200 OK",
    "Date: Tue, 04 Mar 2025 10:00:00 GMT",
    "Content-Type: text/event-stream; charset=utf-8",
    "Transfer-Encoding: chunked",
    "Connection: keep-alive",
    "openai-processing-ms: 112",
    "x-request-id: req_abc123",
    "Set-Cookie: a=1; Path=/",
    "Set-Cookie: b=2; Path=/",
    "",
    "",
  ) + chunked(...SSE_EVENTS);

const JSON_BODY = JSON.stringify({
  id: "chatcmpl-2",
  object: "chat.completion",
  model: "gpt-4o",
  choices: [{ index: 0, message: { role: "assistant", content: "Grüße — 你好" }, finish_reason: "stop" }],
  usage: { prompt_tokens: 9, completion_tokens: 4, total_tokens: 13 },
});
const JSON_RESPONSE =
  http("HTTP/1.1 200 OK", "content-type: application/json", `content-length: ${Buffer.byteLength(JSON_BODY)}`, "x-ratelimit-remaining-requests: 499", "", "") + JSON_BODY;

const utf8 = (text: string) => latin1.decode(encoder.encode(text));

describe("real wire-shaped responses", () => {
  test("an OpenAI-style SSE stream (chunked): head, headers in order, body exact, reusable", () => {
    const outcome = parseEveryWay(SSE_RESPONSE);
    expect(outcome.error).toBeUndefined();
    expect(outcome.heads).toEqual([
      {
        status: 200,
        statusText: "OK",
        headers: [
          ["date", "Tue, 04 Mar 2025 10:00:00 GMT"],
          ["content-type", "text/event-stream; charset=utf-8"],
          ["transfer-encoding", "chunked"],
          ["connection", "keep-alive"],
          ["openai-processing-ms", "112"],
          ["x-request-id", "req_abc123"],
          ["set-cookie", "a=1; Path=/"],
          ["set-cookie", "b=2; Path=/"],
        ],
      },
    ]);
    expect(outcome.body).toBe(utf8(SSE_EVENTS.join("")));
    expect(outcome.ends).toEqual([true]);
    expect(outcome.bodyAfterEnd).toBe(0);
  });

  test("a JSON answer with content-length: body exact (multi-byte UTF-8), reusable", () => {
    const outcome = parseEveryWay(JSON_RESPONSE);
    expect(outcome.heads).toHaveLength(1);
    expect(outcome.heads[0]!.status).toBe(200);
    expect(outcome.heads[0]!.headers).toContainEqual(["x-ratelimit-remaining-requests", "499"]);
    expect(outcome.body).toBe(utf8(JSON_BODY));
    expect(outcome.ends).toEqual([true]);
    expect(outcome.error).toBeUndefined();
  });

  test("an error answer without a reason phrase, binary body bytes kept as they are", () => {
    const body = new Uint8Array([0, 1, 2, 0x0d, 0x0a, 0x0d, 0x0a, 0xff, 0xfe, 0x80]);
    const wire = new Uint8Array([...encoder.encode(http("HTTP/1.1 429", "content-length: 10", "retry-after: 2", "", "")), ...body]);
    const outcome = parseEveryWay(wire);
    expect(outcome.heads).toEqual([{ status: 429, statusText: "", headers: [["content-length", "10"], ["retry-after", "2"]] }]);
    expect(outcome.body).toBe(latin1.decode(body));
    expect(outcome.ends).toEqual([true]);
  });

  test("header names are lower-cased, values trimmed, a value may contain colons", () => {
    const outcome = parseEveryWay(http("HTTP/1.1 200 OK", "X-Trace:   a:b:c  ", "Content-Length:0", "", ""));
    expect(outcome.heads[0]!.headers).toEqual([
      ["x-trace", "a:b:c"],
      ["content-length", "0"],
    ]);
    expect(outcome.ends).toEqual([true]);
  });
});

describe("chunked framing", () => {
  test("a chunk size may have surrounding whitespace, upper-case digits, and a bare LF", () => {
    const wire = http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "") + ` 5 ${CRLF}hello\nB\n world,abcd${CRLF}0${CRLF}${CRLF}`;
    const outcome = parseEveryWay(wire);
    expect(outcome.error).toBeUndefined();
    expect(outcome.body).toBe("hello world,abcd");
    expect(outcome.ends).toEqual([true]);
  });

  test("chunk extensions are ignored (on data chunks and the last chunk)", () => {
    const wire =
      http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "") + `5;name=value${CRLF}hello${CRLF}6 ; quoted="a;b"${CRLF} world${CRLF}A;x${CRLF}0123456789${CRLF}0;last${CRLF}${CRLF}`;
    const outcome = parseEveryWay(wire);
    expect(outcome.body).toBe("hello world0123456789");
    expect(outcome.ends).toEqual([true]);
    expect(outcome.error).toBeUndefined();
  });

  test("upper- and lower-case hex sizes", () => {
    const data = "x".repeat(0x1f);
    const outcome = parseEveryWay(http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "") + `1F${CRLF}${data}${CRLF}1f${CRLF}${data}${CRLF}0${CRLF}${CRLF}`);
    expect(outcome.body).toBe(data + data);
    expect(outcome.ends).toEqual([true]);
  });

  test("trailers are consumed (not body, not headers) and end the message", () => {
    const wire = http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "trailer: x-checksum", "", "") + `3${CRLF}abc${CRLF}0${CRLF}x-checksum: 1234${CRLF}x-other: y${CRLF}${CRLF}`;
    const outcome = parseEveryWay(wire);
    expect(outcome.body).toBe("abc");
    expect(outcome.heads[0]!.headers.map(([name]) => name)).toEqual(["transfer-encoding", "trailer"]);
    expect(outcome.ends).toEqual([true]);
  });

  test("chunked wins over content-length", () => {
    const outcome = parseEveryWay(http("HTTP/1.1 200 OK", "content-length: 3", "transfer-encoding: chunked", "", "") + chunked("hello", " there"));
    expect(outcome.body).toBe("hello there");
    expect(outcome.ends).toEqual([true]);
  });

  test("an incomplete chunked body does not end without close", () => {
    const outcome = parseEveryWay(http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "") + `5${CRLF}hello${CRLF}`);
    expect(outcome.body).toBe("hello");
    expect(outcome.ends).toEqual([]);
    expect(outcome.error).toBeUndefined();
  });
});

describe("responses without a body", () => {
  test("100 Continue (and 103 Early Hints) before the 200: only the final head is reported", () => {
    const wire =
      http("HTTP/1.1 100 Continue", "", "") + http("HTTP/1.1 103 Early Hints", "link: </style.css>; rel=preload", "", "") + http("HTTP/1.1 200 OK", "content-length: 2", "", "") + "ok";
    const outcome = parseEveryWay(wire);
    expect(outcome.heads).toEqual([{ status: 200, statusText: "OK", headers: [["content-length", "2"]] }]);
    expect(outcome.body).toBe("ok");
    expect(outcome.ends).toEqual([true]);
  });

  test("HEAD: the content-length / chunked headers describe a body that is not sent", () => {
    for (const framing of ["content-length: 1234", "transfer-encoding: chunked"]) {
      const outcome = parseEveryWay(http("HTTP/1.1 200 OK", framing, "", ""), { isHead: true });
      expect(outcome.heads[0]!.status).toBe(200);
      expect(outcome.body).toBe("");
      expect(outcome.ends).toEqual([true]);
    }
  });

  test("204 No Content and 304 Not Modified never have a body, whatever their headers say", () => {
    const noContent = parseEveryWay(http("HTTP/1.1 204 No Content", "x-a: 1", "", ""));
    expect(noContent.heads[0]!.status).toBe(204);
    expect(noContent.ends).toEqual([true]);
    const notModified = parseEveryWay(http("HTTP/1.1 304 Not Modified", "etag: \"abc\"", "content-length: 512", "", ""));
    expect(notModified.heads[0]!.status).toBe(304);
    expect(notModified.body).toBe("");
    expect(notModified.ends).toEqual([true]);
  });

  test("content-length: 0 ends with the head", () => {
    const outcome = parseEveryWay(http("HTTP/1.1 200 OK", "content-length: 0", "", ""));
    expect(outcome.body).toBe("");
    expect(outcome.ends).toEqual([true]);
  });

  test("the end is reported once the head is complete, not before", () => {
    const partial = parseEveryWay(http("HTTP/1.1 204 No Content", "x-a: 1", "") + "\r");
    expect(partial.heads).toEqual([]);
    expect(partial.ends).toEqual([]);
  });
});

describe("connection reuse", () => {
  test("no length and not chunked: the body runs until close(), which ends it as not reusable", () => {
    const wire = http("HTTP/1.1 200 OK", "content-type: text/plain", "", "") + "all of this\r\n\r\nis body";
    const open = parseEveryWay(wire);
    expect(open.body).toBe("all of this\r\n\r\nis body");
    expect(open.ends).toEqual([]);
    const closed = parseEveryWay(wire, { close: true });
    expect(closed.body).toBe("all of this\r\n\r\nis body");
    expect(closed.ends).toEqual([false]);
    expect(closed.error).toBeUndefined();
  });

  test("an empty close-delimited body ends on close()", () => {
    expect(parseEveryWay(http("HTTP/1.1 200 OK", "", ""), { close: true })).toMatchObject({ body: "", ends: [false] });
  });

  test("connection: close (any case, in a list) makes an otherwise complete response unreusable", () => {
    for (const value of ["close", "Close", "keep-alive, close"]) {
      const outcome = parseEveryWay(http("HTTP/1.1 200 OK", "content-length: 2", `Connection: ${value}`, "", "") + "ok");
      expect(outcome.body).toBe("ok");
      expect(outcome.ends).toEqual([false]);
    }
    const chunkedClose = parseEveryWay(http("HTTP/1.1 200 OK", "connection: close", "transfer-encoding: chunked", "", "") + chunked("ok"));
    expect(chunkedClose.ends).toEqual([false]);
  });

  test("HTTP/1.0 is reusable only with connection: keep-alive", () => {
    expect(parseEveryWay(http("HTTP/1.0 200 OK", "content-length: 2", "", "") + "ok")).toMatchObject({ body: "ok", ends: [false] });
    expect(parseEveryWay(http("HTTP/1.0 200 OK", "content-length: 2", "Connection: Keep-Alive", "", "") + "ok")).toMatchObject({ body: "ok", ends: [true] });
    // HTTP/1.0 without a length: close-delimited.
    expect(parseEveryWay(http("HTTP/1.0 200 OK", "", "") + "legacy", { close: true })).toMatchObject({ body: "legacy", ends: [false] });
  });

  test("repeated identical content-length headers are accepted", () => {
    expect(parseEveryWay(http("HTTP/1.1 200 OK", "content-length: 2", "Content-Length: 2", "", "") + "ok")).toMatchObject({ body: "ok", ends: [true] });
  });

  test("bytes after a complete response are not body, and make the connection unreusable when they come with it", () => {
    const wire = bytesOf(http("HTTP/1.1 200 OK", "content-length: 2", "", "") + "okEXTRA");
    const together = feed([wire.slice()]);
    expect(together.body).toBe("ok");
    expect(together.bodyAfterEnd).toBe(0);
    expect(together.ends).toEqual([false]);
    // Arriving in a later push, they reach an idle connection, which the connection layer drops (connection.ts).
    const cut = wire.length - "EXTRA".length;
    const apart = feed([wire.slice(0, cut), wire.slice(cut)]);
    expect(apart.body).toBe("ok");
    expect(apart.bodyAfterEnd).toBe(0);
    expect(apart.ends).toEqual([true]);
  });

  test("close() after a complete response changes nothing", () => {
    expect(parseEveryWay(JSON_RESPONSE, { close: true })).toMatchObject({ ends: [true] });
  });
});

describe("malformed and truncated responses", () => {
  const errorOf = (wire: string | Uint8Array, options: FeedOptions = {}) => {
    const outcome = parseEveryWay(wire, options);
    expect(outcome.ends).toEqual([]);
    expect(outcome.error).toBeDefined();
    return outcome.error!;
  };

  test("101 Switching Protocols, never asked for, is refused", () => {
    const error = errorOf(http("HTTP/1.1 101 Switching Protocols", "upgrade: websocket", "connection: upgrade", "", ""));
    expect(error.code).toBe("HPE_INVALID_RESPONSE");
    expect(error.message).toContain("101");
  });

  test("conflicting content-length headers", () => {
    const error = errorOf(http("HTTP/1.1 200 OK", "content-length: 2", "content-length: 3", "", "") + "ok!");
    expect(error.code).toBe("HPE_INVALID_RESPONSE");
    expect(error.message).toContain("conflicting content-length");
  });

  test("a content-length that is not a number", () => {
    for (const value of ["-1", "12abc", "1, 2", ""]) {
      expect(errorOf(http("HTTP/1.1 200 OK", `content-length: ${value}`, "", "")).message).toContain("invalid content-length");
    }
  });

  test("an invalid status line", () => {
    for (const line of ["HTTP/2 200 OK", "ICY 200 OK", "HTTP/1.1 20 OK", "HTTP/1.1 2000 OK", "http/1.1 200 OK", "<html>"]) {
      const error = errorOf(http(line, "content-length: 0", "", ""));
      expect(error.code).toBe("HPE_INVALID_RESPONSE");
      expect(error.message).toContain("invalid status line");
    }
  });

  test("a three-digit status below 100 is refused", () => {
    for (const line of ["HTTP/1.1 000 Nothing", "HTTP/1.1 099 Low"]) {
      const error = errorOf(http(line, "content-length: 0", "", ""));
      expect(error.code).toBe("HPE_INVALID_RESPONSE");
      expect(error.message).toContain("invalid status");
    }
  });

  test("a header line without a colon", () => {
    expect(errorOf(http("HTTP/1.1 200 OK", "not a header", "", "")).message).toContain("invalid header line");
  });

  test("an invalid chunk size", () => {
    for (const size of ["zz", "", "-1", "0x10", "1234567890abc", "1 a", "1\ra", " ", ";ext"]) {
      const error = errorOf(http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "") + `${size}${CRLF}data${CRLF}0${CRLF}${CRLF}`);
      expect(error.code).toBe("HPE_INVALID_RESPONSE");
      expect(error.message).toContain("invalid chunk size");
    }
  });

  test("chunk data overrunning its declared size", () => {
    const error = errorOf(http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "") + `5${CRLF}hello, world${CRLF}0${CRLF}${CRLF}`);
    expect(error.code).toBe("HPE_INVALID_RESPONSE");
    expect(error.message).toContain("overran");
  });

  test("a truncated content-length body, then close(): ECONNRESET", () => {
    const wire = http("HTTP/1.1 200 OK", "content-length: 10", "", "") + "12345";
    const outcome = parseEveryWay(wire, { close: true });
    expect(outcome.body).toBe("12345");
    expect(outcome.ends).toEqual([]);
    expect(outcome.error).toEqual({ code: "ECONNRESET", message: "upstream closed the connection mid-response" });
  });

  test("a truncated chunked body (mid-chunk, mid-size-line, before the last chunk, in the trailers), then close(): ECONNRESET", () => {
    const head = http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "");
    for (const tail of [`5${CRLF}hel`, `5${CRLF}hello${CRLF}1`, `5${CRLF}hello${CRLF}`, `5${CRLF}hello`, `0${CRLF}`, `0${CRLF}x-t: 1${CRLF}`]) {
      expect(errorOf(head + tail, { close: true })).toEqual({ code: "ECONNRESET", message: "upstream closed the connection mid-response" });
    }
  });

  test("close() before (or in the middle of) the head: ECONNRESET", () => {
    expect(feed([], { close: true }).error).toEqual({ code: "ECONNRESET", message: "upstream closed the connection before answering" });
    expect(errorOf("HTTP/1.1 200 OK\r\ncontent-le", { close: true })).toEqual({ code: "ECONNRESET", message: "upstream closed the connection before answering" });
    // A 1xx alone is not an answer.
    expect(errorOf(http("HTTP/1.1 100 Continue", "", ""), { close: true }).code).toBe("ECONNRESET");
  });

  test("an error stops the parse: nothing is reported after it", () => {
    const outcome = feed([encoder.encode("HTTP/1.1 200 OK\r\ncontent-length: 1\r\ncontent-length: 2\r\n\r\nab")]);
    expect(outcome.heads).toEqual([]);
    expect(outcome.body).toBe("");
  });
});

describe("size limits", () => {
  /** A head of exactly `size` bytes (CRLFCRLF included). */
  const headOfSize = (size: number) => {
    const start = "HTTP/1.1 200 OK\r\nx-pad: ";
    const end = "\r\ncontent-length: 0\r\n\r\n";
    return start + "a".repeat(size - start.length - end.length) + end;
  };
  /** Cheaper than every split for 64 KB: whole, every 997 bytes, and around the limit. */
  const coarseSplits = (bytes: Uint8Array): Uint8Array[][] => {
    const result: Uint8Array[][] = [[bytes]];
    for (let at = 0; at <= bytes.length; at += 997) result.push([bytes.subarray(0, at), bytes.subarray(at)]);
    for (let at = MAX_HEAD_BYTES - 5; at <= Math.min(bytes.length, MAX_HEAD_BYTES + 5); at++) result.push([bytes.subarray(0, at), bytes.subarray(at)]);
    const pieces: Uint8Array[] = [];
    for (let at = 0; at < bytes.length; at += 4096) pieces.push(bytes.subarray(at, at + 4096));
    result.push(pieces);
    return result;
  };
  const outcomesOf = (wire: string) => coarseSplits(encoder.encode(wire)).map((pieces) => feed(pieces));

  test("a head over MAX_HEAD_BYTES is refused (HPE_HEADER_OVERFLOW) however it arrives", () => {
    for (const outcome of outcomesOf(headOfSize(MAX_HEAD_BYTES + 1))) {
      expect(outcome.heads).toEqual([]);
      expect(outcome.error?.code).toBe("HPE_HEADER_OVERFLOW");
    }
    // An unterminated head growing past the limit is refused without waiting for its end.
    for (const outcome of outcomesOf("HTTP/1.1 200 OK\r\nx-pad: " + "a".repeat(MAX_HEAD_BYTES))) {
      expect(outcome.error?.code).toBe("HPE_HEADER_OVERFLOW");
    }
  });

  test("a head of exactly MAX_HEAD_BYTES is accepted however it arrives", () => {
    for (const outcome of outcomesOf(headOfSize(MAX_HEAD_BYTES))) {
      expect(outcome.error).toBeUndefined();
      expect(outcome.heads).toHaveLength(1);
      expect(outcome.ends).toEqual([true]);
    }
  });

  test("an over-long chunk-size line is refused however it arrives", () => {
    const wire = http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "") + `5;${"e".repeat(5000)}${CRLF}hello${CRLF}0${CRLF}${CRLF}`;
    const bytes = encoder.encode(wire);
    const cuts = [[bytes], [bytes.subarray(0, 100), bytes.subarray(100)], [bytes.subarray(0, 3000), bytes.subarray(3000)], Array.from({ length: Math.ceil(bytes.length / 512) }, (_, i) => bytes.subarray(i * 512, i * 512 + 512))];
    for (const pieces of cuts) {
      const outcome = feed(pieces);
      expect(outcome.error).toEqual({ code: "HPE_INVALID_RESPONSE", message: "upstream sent an over-long chunk line" });
      expect(outcome.body).toBe("");
    }
    // A long extension that stays under the limit is fine, however it arrives.
    const fine = encoder.encode(http("HTTP/1.1 200 OK", "transfer-encoding: chunked", "", "") + `5;${"e".repeat(4000)}${CRLF}hello${CRLF}0${CRLF}${CRLF}`);
    for (let at = 0; at <= fine.length; at += 7) {
      expect(feed([fine.subarray(0, at), fine.subarray(at)])).toMatchObject({ body: "hello", ends: [true] });
    }
  });
});

describe("parser state", () => {
  test("a 1xx reports no head; the final head comes first and the end only with the last body byte", () => {
    const seen: string[] = [];
    const parser = new ResponseParser(
      { head: (head) => seen.push(`head ${head.status}`), body: (bytes) => seen.push(`body ${bytes.length}`), end: (reusable) => seen.push(`end ${reusable}`) },
      false,
    );
    parser.push(encoder.encode(http("HTTP/1.1 100 Continue", "", "")));
    expect(seen).toEqual([]);
    parser.push(encoder.encode(http("HTTP/1.1 200 OK", "content-length: 3", "", "") + "ab"));
    expect(seen).toEqual(["head 200", "body 2"]);
    parser.push(encoder.encode("c"));
    expect(seen).toEqual(["head 200", "body 2", "body 1", "end true"]);
  });

  test("body bytes are views of the pushed buffer, not copies", () => {
    const views: Uint8Array[] = [];
    const parser = new ResponseParser({ head() {}, body: (bytes) => views.push(bytes), end() {} }, false);
    const wire = encoder.encode(http("HTTP/1.1 200 OK", "content-length: 5", "", "") + "hello");
    parser.push(wire);
    expect(views).toHaveLength(1);
    expect(views[0]!.buffer).toBe(wire.buffer);
  });
});
