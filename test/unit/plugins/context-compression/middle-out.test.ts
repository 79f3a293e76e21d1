/** plugins/context-compression: the middle-out engine (units, pairs, caps, cuts) and the token measures. */
import { beforeAll, describe, expect, test } from "bun:test";
import type { Message } from "../../../../core/model/parts.ts";
import { cutMiddle, middleOut, MIN_KEPT_TOKENS, unitsOf } from "../../../../plugins/context-compression/middle-out.ts";
import { byteBound, messageTokens, tokenizer, type Tokenizer } from "../../../../core/model/tokens.ts";

let tk: Tokenizer;
beforeAll(async () => void (tk = await tokenizer()));

const user = (text: string): Message => ({ role: "user", parts: [{ type: "text", text }] });
const assistant = (text: string): Message => ({ role: "assistant", parts: [{ type: "text", text }] });
const call = (id: string): Message => ({ role: "assistant", parts: [{ type: "tool-call", id, name: "lookup", arguments: `{"q":"${id}"}` }] });
const result = (id: string, text = "result"): Message => ({ role: "tool", parts: [{ type: "tool-result", callId: id, content: text }] });
const texts = (messages: readonly Message[]) =>
  messages.map((m) => {
    const first = m.parts[0]!;
    return first.type === "text" ? first.text : first.type;
  });
const sizeOf = (messages: readonly Message[]) => messages.reduce((sum, m) => sum + messageTokens(m, tk.count), 0);

/** `n` alternating user/assistant messages named m0…m(n-1), each about `words` words long. */
function history(n: number, words = 20): Message[] {
  return Array.from({ length: n }, (_, i) => (i % 2 === 0 ? user : assistant)(`m${i} ${"lorem ipsum dolor sit amet ".repeat(words / 5)}`.trim()));
}

describe("units", () => {
  test("an assistant turn with tool calls takes the results that answer it; an orphan result stands alone", async () => {
    const messages = [user("q"), call("a"), result("a"), result("a2"), assistant("done"), result("orphan")];
    expect(unitsOf(messages).map((u) => u.length)).toEqual([1, 3, 1, 1]);
  });
});

describe("middleOut", () => {
  test("everything that fits is kept as it is", async () => {
    const messages = history(6);
    const out = await middleOut({ messages, budget: sizeOf(messages), tokenizer: tk.sliced() });
    expect(out).toMatchObject({ fits: true, removed: 0, truncated: 0 });
    if (out.fits) expect(out.messages).toEqual(messages);
  });

  test("removes from the middle: the first and last stay, the rest is kept from both ends inwards", async () => {
    const messages = history(20);
    const per = messageTokens(messages[1]!, tk.count);
    const out = await middleOut({ messages, budget: per * 8 + 4, tokenizer: tk.sliced() });
    if (!out.fits) throw new Error("should fit");
    const kept = texts(out.messages).map((t) => t.split(" ")[0]);
    expect(kept[0]).toBe("m0");
    expect(kept.at(-1)).toBe("m19");
    expect(out.messages.length).toBe(8);
    expect(kept).toEqual(["m0", "m1", "m2", "m3", "m16", "m17", "m18", "m19"]);
    expect(out.removed).toBe(12);
    expect(out.tokens).toBeLessThanOrEqual(per * 8 + 4);
  });

  test("tool calls and their results go as pairs, never one without the other", async () => {
    const messages = [user("first question"), call("a"), result("a", "x ".repeat(200)), call("b"), result("b"), assistant("answer"), user("last")];
    const budget = sizeOf([messages[0]!, messages[3]!, messages[4]!, messages[5]!, messages[6]!]) + 2;
    const out = await middleOut({ messages, budget, tokenizer: tk.sliced() });
    if (!out.fits) throw new Error("should fit");
    const ids = out.messages.flatMap((m) => m.parts.map((p) => (p.type === "tool-call" ? `call:${p.id}` : p.type === "tool-result" ? `result:${p.callId}` : p.type)));
    expect(ids).toEqual(["text", "call:b", "result:b", "text", "text"]);
  });

  test("a message cap keeps about half from the start and half from the end", async () => {
    const messages = history(30, 5);
    const out = await middleOut({ messages, budget: 1_000_000, maxMessages: 10, tokenizer: tk.sliced() });
    if (!out.fits) throw new Error("should fit");
    expect(out.messages).toHaveLength(10);
    expect(texts(out.messages).map((t) => t.split(" ")[0])).toEqual(["m0", "m1", "m2", "m3", "m4", "m25", "m26", "m27", "m28", "m29"]);
  });

  test("when the first and last alone do not fit, their longest text is cut in the middle (start and end kept)", async () => {
    const long = `START ${"filler words here ".repeat(400)} END`;
    const messages = [user("short opener"), assistant("middle"), user(long)];
    const out = await middleOut({ messages, budget: 200, tokenizer: tk.sliced() });
    if (!out.fits) throw new Error("should fit");
    expect(out.truncated).toBe(1);
    expect(out.removed).toBe(1);
    expect(out.tokens).toBeLessThanOrEqual(200);
    const cut = texts(out.messages)[1]!;
    expect(cut.startsWith("START")).toBe(true);
    expect(cut.endsWith("END")).toBe(true);
    expect(cut).toContain("[…]");
    // The caller's messages are untouched.
    expect(texts(messages)[2]).toBe(long);
  });

  test("nothing left to cut (tool-call JSON is never cut) → does not fit, with the minimum it needs", async () => {
    const huge: Message = { role: "assistant", parts: [{ type: "tool-call", id: "x", name: "f", arguments: JSON.stringify({ v: "y ".repeat(500) }) }] };
    const out = await middleOut({ messages: [user("q"), huge], budget: 100, tokenizer: tk.sliced() });
    expect(out.fits).toBe(false);
    if (!out.fits) expect(out.minimumTokens).toBeGreaterThan(100);
  });

  test("a 200k-token history is compressed to an 8k budget, counting only the messages it keeps (and the one that did not fit)", async () => {
    const messages = history(2_000, 100);
    const total = sizeOf(messages);
    expect(total).toBeGreaterThan(200_000);
    const sliced = tk.sliced();
    const counted: Message[] = [];
    const watched = { ...sliced, message: (message: Message, limit?: number) => (counted.push(message), sliced.message(message, limit)) };
    const out = await middleOut({ messages, budget: 8_000, tokenizer: watched });
    if (!out.fits) throw new Error("should fit");
    expect(out.tokens).toBeLessThanOrEqual(8_000);
    expect(counted.length).toBeLessThanOrEqual(out.messages.length + 2);
  });
});

describe("bounded work on huge input", () => {
  test("one 9 MB message of words is cut to the budget, its start and end kept", async () => {
    const huge = `BEGIN ${"lorem ipsum dolor sit amet ".repeat(350_000)}END`;
    const out = await middleOut({ messages: [user("first"), assistant("middle"), user(huge)], budget: 8_000, tokenizer: tk.sliced() });
    if (!out.fits) throw new Error("should fit");
    expect(out.tokens).toBeLessThanOrEqual(8_000);
    expect(sizeOf(out.messages)).toBeLessThanOrEqual(8_000);
    const cut = texts(out.messages)[1]!;
    expect(cut.startsWith("BEGIN lorem")).toBe(true);
    expect(cut.endsWith("amet END")).toBe(true);
    expect(cut.length).toBeLessThan(60_000);
  });

  test("a run of 5 MB with no space is cut by characters", async () => {
    const out = await middleOut({ messages: [user("x".repeat(5_000_000))], budget: 2_000, tokenizer: tk.sliced() });
    if (!out.fits) throw new Error("should fit");
    expect(sizeOf(out.messages)).toBeLessThanOrEqual(2_000);
    expect(texts(out.messages)[0]).toMatch(/^x+\n\[…\]\nx+$/);
  });

  test("thousands of texts in the last message: each counted once, the longest cut first", async () => {
    const parts = Array.from({ length: 3_000 }, (_, i) => ({ type: "text" as const, text: `part ${i} ${"lorem ipsum dolor sit amet ".repeat(20)}` }));
    const last: Message = { role: "user", parts };
    const out = await middleOut({ messages: [user("first"), last], budget: 150_000, tokenizer: tk.sliced() });
    if (!out.fits) throw new Error("should fit");
    expect(out.tokens).toBeLessThanOrEqual(150_000);
    expect(sizeOf(out.messages)).toBeLessThanOrEqual(150_000);
    expect(out.truncated).toBeGreaterThan(1_000);
  });
});

describe("measures", () => {
  test("the byte bound is never below the exact count", async () => {
    for (const text of ["hello world", "日本語のテキスト", "emoji 🎉🎉 mixed", "x".repeat(1000)]) {
      expect(byteBound(text)).toBeGreaterThanOrEqual(tk.count(text));
    }
  });

  test("cutMiddle keeps at most about `keep` tokens and drops split characters", async () => {
    const cut = await cutMiddle("日本語 ".repeat(300), MIN_KEPT_TOKENS, tk.sliced());
    expect(tk.count(cut)).toBeLessThanOrEqual(MIN_KEPT_TOKENS + 6);
    expect(cut).not.toContain("\uFFFD");
  });

  test("special-token look-alikes are ordinary text", async () => {
    expect(tk.count("<|endoftext|>")).toBeGreaterThan(1);
  });
});
