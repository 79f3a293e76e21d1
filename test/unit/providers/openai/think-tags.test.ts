/** providers/openai/think-tags.ts: `<think>` blocks in the answer text become reasoning, however the text is cut. */
import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../../core/sdk/index.ts";
import { splitThinkEvents, splitThinkParts, ThinkSplitter } from "../../../../providers/openai/think-tags.ts";
import { drain } from "../helpers.ts";

const TEXT = "<think>\nThe user wants the capital.\n</think>\n\nParis is the capital.";

/** The pieces of `text` cut every `size` characters. */
function splitEvery(text: string, size: number) {
  const splitter = new ThinkSplitter();
  const pieces = [];
  for (let i = 0; i < text.length; i += size) pieces.push(...splitter.push(text.slice(i, i + size)));
  pieces.push(...splitter.flush());
  // Adjacent pieces of the same side are one run.
  const merged: Array<{ reasoning: boolean; text: string }> = [];
  for (const p of pieces) {
    const last = merged.at(-1);
    if (last?.reasoning === p.reasoning) last.text += p.text;
    else merged.push({ ...p });
  }
  return merged;
}

describe("ThinkSplitter", () => {
  test("tags cut anywhere give the same reasoning and text, without the layout whitespace around the tags", () => {
    const expected = [
      { reasoning: true, text: "The user wants the capital." },
      { reasoning: false, text: "Paris is the capital." },
    ];
    for (const size of [1, 2, 3, 5, 7, 8, 100]) expect(splitEvery(TEXT, size)).toEqual(expected);
  });

  test("text before, between and after blocks keeps its order; text without tags is untouched", () => {
    expect(splitEvery("Sure. <think>a</think>B<think>c</think> D", 3)).toEqual([
      { reasoning: false, text: "Sure. " },
      { reasoning: true, text: "a" },
      { reasoning: false, text: "B" },
      { reasoning: true, text: "c" },
      { reasoning: false, text: "D" },
    ]);
    expect(splitEvery("a < b and <thin ice>", 4)).toEqual([{ reasoning: false, text: "a < b and <thin ice>" }]);
  });

  test("a block never closed (the answer was cut) is reasoning to the end", () => {
    expect(splitEvery("<think>still thinking", 4)).toEqual([{ reasoning: true, text: "still thinking" }]);
  });
});

describe("whole replies and streams", () => {
  test("a text part becomes a reasoning part and a text part; the text keeps its annotations", () => {
    const annotations = [{ type: "url_citation", url: "https://a.example", title: "A", start_index: 0, end_index: 5 }];
    expect(splitThinkParts([{ type: "text", text: TEXT, annotations }])).toEqual([
      { type: "reasoning", text: "The user wants the capital." },
      { type: "text", text: "Paris is the capital.", annotations },
    ]);
  });

  test("text events become one reasoning block, then text, one block open at a time", async () => {
    async function* source(): AsyncGenerator<StreamEvent> {
      yield { type: "text-start", id: "text_0" };
      for (let i = 0; i < TEXT.length; i += 4) yield { type: "text-delta", id: "text_0", delta: TEXT.slice(i, i + 4) };
      yield { type: "text-end", id: "text_0" };
      yield { type: "finish", finish: { reason: "stop" } };
    }
    const events = await drain(splitThinkEvents(source()));
    const kinds = events.map((e) => e.type).filter((t, i, all) => t !== all[i - 1]);
    expect(kinds).toEqual(["reasoning-start", "reasoning-delta", "reasoning-end", "text-start", "text-delta", "text-end", "finish"]);
    const text = (type: string) => events.flatMap((e) => (e.type === type ? [(e as { delta: string }).delta] : [])).join("");
    expect(text("reasoning-delta")).toBe("The user wants the capital.");
    expect(text("text-delta")).toBe("Paris is the capital.");
    const starts = events.filter((e) => e.type === "text-start" || e.type === "reasoning-start").map((e) => (e as { id: string }).id);
    expect(new Set(starts).size).toBe(2);
  });
});
