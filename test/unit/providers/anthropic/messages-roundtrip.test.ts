import { describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { toAnthropicBody } from "../../../../providers/anthropic/request.ts";
import { fromAnthropicMessage } from "../../../../providers/anthropic/response.ts";
import type { WireMessage } from "../../../../providers/anthropic/wire.ts";
import { encodeContext } from "../../formats/messages/helpers.ts";
import { providerCall, target } from "../helpers.ts";
import { CACHE_WRITE_MESSAGE, TOOL_MESSAGE } from "./fixtures.ts";

describe("Messages client × Anthropic: a native round trip is byte-exact", () => {
  test("result blocks equal Anthropic's own; echoing them back sends the same blocks upstream", () => {
    const call = providerCall({ target: target({ providerId: "anthropic", upstreamModel: "claude-sonnet-4-5-20250929" }) });
    const turn1 = fromAnthropicMessage(TOOL_MESSAGE as WireMessage, call);
    const result = messagesFormat.encode(turn1, encodeContext());
    expect(result.content).toEqual(TOOL_MESSAGE.content.map((b) => (b.type === "text" ? { ...b, citations: null } : b)));
    expect(result.usage).toMatchObject({ input_tokens: 472, cache_read_input_tokens: 1800, cache_creation_input_tokens: 0, output_tokens: 89 });
    const next = messagesFormat.decode(
      {
        model: "anthropic/claude-sonnet-4.5",
        max_tokens: 4096,
        messages: [
          { role: "user", content: "Weather in SF?" },
          { role: "assistant", content: result.content },
          { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_01T1x1fJ34qAmk2tNTrN7Up6", content: "15C" }] },
        ],
      },
      new Headers(),
    );
    const body = toAnthropicBody(next, call.target, false);
    expect(body.messages[1]?.content).toEqual(TOOL_MESSAGE.content);
  });

  test("redacted thinking, citations and the 1h cache split come through", () => {
    const response = fromAnthropicMessage(CACHE_WRITE_MESSAGE as WireMessage, providerCall());
    const result = messagesFormat.encode(response, encodeContext());
    expect(result.content).toEqual(CACHE_WRITE_MESSAGE.content);
    expect(result.usage).toMatchObject({
      input_tokens: 21,
      cache_creation_input_tokens: 2048,
      cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 2048 },
    });
  });
});
