/**
 * An example third-party server tool, loaded from the config's `extensions` by path:
 *   {"extensions": ["./examples/tools/word-count.ts"]}
 * A request declares it with `tools: [{"type": "service:word_count"}]`; the model sees a function `word_count`
 * taking `{text}` and gets back `{words, characters, lines}` (characters are Unicode code points, so an emoji counts
 * once). It imports only the public SDK entry: runtime values come from the gateway (brand via Symbol.for), so a copy
 * of this module outside the binary works.
 */
import { defineTool, type ToolRunContext } from "inference-gateway/sdk";

/** Longest text accepted (characters); longer is an error result for the model. */
const MAX_TEXT = 100_000;

export default defineTool({
  id: "service:word_count",
  description: "Counts the words, characters and lines of a text.",
  argumentsSchema: {
    type: "object",
    properties: { text: { type: "string", description: "The text to count.", maxLength: MAX_TEXT } },
    required: ["text"],
    additionalProperties: false,
  },
  async run(args: Record<string, unknown>, _ctx: ToolRunContext) {
    const text = args.text;
    if (typeof text !== "string") throw new Error('"text" must be a string');
    if (text.length > MAX_TEXT) throw new Error(`"text" is longer than ${MAX_TEXT} characters`);
    return {
      words: text.split(/\s+/u).filter(Boolean).length,
      characters: [...text].length,
      lines: text === "" ? 0 : text.split(/\r\n|\r|\n/).length,
    };
  },
});
