/**
 * A loopback OpenAI chat-completions upstream for the idempotency tests: it counts the requests it received (the
 * proof that a retry triggered no upstream call), answers after `delayMs`, streams its words `chunkDelayMs` apart
 * (so a retry can join a stream midway), fails the next `failures` requests with a 500, and breaks the next
 * `brokenStreams` streams off after their second frame (the connection drops mid-stream). With `words` set, the
 * answer is that many words instead, each stream frame made only when the server's socket asks for it; `sent` counts
 * the bytes each stream handed its socket, `cancelled` the streams the gateway let go before their end.
 */
export const PROMPT_TOKENS = 12;
export const COMPLETION_TOKENS = 5;
export const ANSWER = "one two three four five";

export interface CountingUpstream {
  baseUrl: string;
  /** Request bodies received, in order. */
  readonly bodies: Array<Record<string, unknown>>;
  delayMs: number;
  chunkDelayMs: number;
  failures: number;
  brokenStreams: number;
  /** Answer length in words (0: the five words of `ANSWER`). */
  words: number;
  /** Bytes each stream handed its socket, by request index. */
  readonly sent: number[];
  cancelled: number;
  reset(): void;
  stop(): void;
}

const usage = { prompt_tokens: PROMPT_TOKENS, completion_tokens: COMPLETION_TOKENS, total_tokens: PROMPT_TOKENS + COMPLETION_TOKENS };
const encoder = new TextEncoder();

export function startCountingUpstream(): CountingUpstream {
  const upstream: CountingUpstream = {
    baseUrl: "",
    bodies: [],
    delayMs: 0,
    chunkDelayMs: 0,
    failures: 0,
    brokenStreams: 0,
    words: 0,
    sent: [],
    cancelled: 0,
    reset() {
      this.bodies.length = 0;
      this.delayMs = 0;
      this.chunkDelayMs = 0;
      this.failures = 0;
      this.brokenStreams = 0;
      this.words = 0;
      this.sent.length = 0;
      this.cancelled = 0;
    },
    stop: () => server.stop(true),
  };
  const server = Bun.serve({
    hostname: "127.0.0.1",
    port: 0,
    idleTimeout: 0,
    async fetch(req) {
      const body = (await req.json()) as Record<string, unknown>;
      const index = upstream.bodies.length;
      upstream.bodies.push(body);
      if (upstream.delayMs > 0) await Bun.sleep(upstream.delayMs);
      if (upstream.failures > 0) {
        upstream.failures--;
        return Response.json({ error: { message: "upstream broke", type: "server_error" } }, { status: 500 });
      }
      const id = `chatcmpl-${index}`;
      const wordCount = upstream.words > 0 ? upstream.words : ANSWER.split(" ").length;
      const word = (i: number) => (upstream.words > 0 ? `w${i % 10} ` : ANSWER.split(/(?<= )/)[i]!);
      if (body.stream !== true) {
        const content = upstream.words > 0 ? Array.from({ length: wordCount }, (_, i) => word(i)).join("") : ANSWER;
        return Response.json({ id, object: "chat.completion", created: 1754042400, model: "m", choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }], usage });
      }
      const chunk = (delta: Record<string, unknown>, finish: string | null = null) =>
        `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1754042400, model: "m", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
      const tail = [chunk({}, "stop"), `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 1754042400, model: "m", choices: [], usage })}\n\n`, "data: [DONE]\n\n"];
      // Frame n: the role, then one per word, then the tail; made when asked for, so a long answer costs nothing ahead.
      const frameAt = (n: number): string | undefined =>
        n === 0 ? chunk({ role: "assistant", content: "" }) : n <= wordCount ? chunk({ content: word(n - 1) }) : tail[n - wordCount - 1];
      const pace = upstream.chunkDelayMs;
      const breaks = upstream.brokenStreams > 0;
      if (breaks) upstream.brokenStreams--;
      upstream.sent[index] = 0;
      let next = 0;
      const stream = new ReadableStream<Uint8Array>({
        async pull(controller) {
          const frame = frameAt(next);
          if (frame === undefined) return controller.close();
          if (pace > 0) await Bun.sleep(pace);
          if (breaks && next === 2) return controller.error(new Error("connection dropped"));
          next++;
          const bytes = encoder.encode(frame);
          upstream.sent[index]! += bytes.byteLength;
          controller.enqueue(bytes);
        },
        cancel() {
          upstream.cancelled++;
        },
      });
      return new Response(stream, { headers: { "content-type": "text/event-stream" } });
    },
  });
  upstream.baseUrl = `http://127.0.0.1:${server.port}/v1`;
  return upstream;
}

/** Resolves once the upstream has received `count` requests (a first attempt is surely running then). */
export async function untilReceived(upstream: CountingUpstream, count = 1, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (upstream.bodies.length < count) {
    if (Date.now() > deadline) throw new Error(`upstream received ${upstream.bodies.length} of ${count} requests`);
    await Bun.sleep(5);
  }
}
