/** plugins/router-kit/classify.ts: the routers' local prompt classifier — task types, complexity, speed. */
import { describe, expect, test } from "bun:test";
import { conformanceRequest } from "../../../../core/sdk/conformance.ts";
import { classify } from "../../../../plugins/router-kit/classify.ts";

const taskOf = (prompt: string, overrides = {}) => classify(conformanceRequest(prompt, overrides)).task;

describe("task types", () => {
  test.each([
    ["coding", "Why does this throw a TypeError?\n```js\nconst x = undefined;\nx.foo();\n```"],
    ["coding", "Write a Python function that parses ISO dates"],
    ["reasoning", "Prove that the sum of two even numbers is even, step by step"],
    ["reasoning", "If 3 * 17 = x, what is x + 12? Explain why."],
    ["creative", "Write a short poem about the sea"],
    ["extraction", "Extract every person and date from the following text: Ann met Bob on 3 May."],
    ["summarization", "Summarize this article in three key points: the council met on Tuesday and voted."],
    ["translation", "Translate 'good morning' into French"],
    ["chat", "hello, how are you?"],
  ])("%s: %s", (task, prompt) => {
    expect(taskOf(prompt)).toBe(task as never);
  });

  test("no cue strong enough: unclassified", () => {
    expect(taskOf("Lorem ipsum dolor sit amet")).toBeUndefined();
    expect(taskOf("")).toBeUndefined();
  });

  test("asking for JSON output is an extraction cue; the last user message is what counts", () => {
    expect(taskOf("list the colours", { output: { format: { type: "json_object" } } })).toBe("extraction");
    const request = conformanceRequest("hello", {
      messages: [
        { role: "user", parts: [{ type: "text", text: "Write a poem" }] },
        { role: "assistant", parts: [{ type: "text", text: "Roses…" }] },
        { role: "user", parts: [{ type: "text", text: "Now fix the bug in this Rust code: fn main() { let x = 5; x = 6; }" }] },
      ],
    });
    expect(classify(request).task).toBe("coding");
  });

  test("deterministic, and complexity grows with demanding prompts", () => {
    const hard = "Design the architecture step by step, rigorously, covering edge cases: prove the algorithm is optimal and analyze the trade-offs";
    expect(classify(conformanceRequest(hard))).toEqual(classify(conformanceRequest(hard)));
    expect(classify(conformanceRequest(hard)).complexity).toBeGreaterThan(0.6);
    expect(classify(conformanceRequest("hi")).complexity).toBe(0);
  });
});

test("a 10k-token prompt is classified in well under a millisecond", () => {
  const paragraph = "The quarterly report covers revenue, costs and the outlook for the next year in some detail. ";
  const code = "function add(a, b) {\n  return a + b;\n}\n";
  // ≈ 40,000 characters, about 10,000 tokens.
  const prompt = `${paragraph.repeat(300)}\n\`\`\`js\n${code.repeat(300)}\`\`\`\nWhy does this code fail?`;
  const request = conformanceRequest(prompt);
  for (let i = 0; i < 50; i++) classify(request); // warm the JIT
  const times: number[] = [];
  for (let i = 0; i < 200; i++) {
    const start = performance.now();
    classify(request);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  expect(classify(request).task).toBe("coding");
  expect(times[100]!).toBeLessThan(1);
});
