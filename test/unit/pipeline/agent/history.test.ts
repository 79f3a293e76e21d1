/**
 * Replayed server-tool parts: the gateway's own (`service:…`) become the function call and result the model saw; a
 * tool the upstream ran itself (Anthropic's `web_search`) stays a server-tool part for the adapter to send back.
 */
import { expect, test } from "bun:test";
import type { Message, ServerToolPart } from "../../../../core/model/parts.ts";
import { expandServerToolHistory } from "../../../../core/pipeline/agent/history.ts";

const part = (name: string, id: string): ServerToolPart => ({
  type: "server-tool",
  id,
  callId: id,
  name,
  arguments: '{"query":"shannon"}',
  status: "completed",
  result: { query: "shannon", results: [] },
});

test("gateway-run parts are expanded; upstream-run ones are kept in place", () => {
  const upstream = part("web_search", "srvtoolu_01");
  const messages: Message[] = [
    { role: "user", parts: [{ type: "text", text: "When?" }] },
    { role: "assistant", parts: [upstream, { type: "text", text: "1916." }] },
    { role: "user", parts: [{ type: "text", text: "Where?" }] },
    { role: "assistant", parts: [part("service:web_search", "st_1"), { type: "text", text: "Petoskey." }] },
  ];
  const out = expandServerToolHistory(messages, undefined);
  expect(out.slice(0, 3)).toEqual(messages.slice(0, 3));
  expect(out.slice(3)).toEqual([
    { role: "assistant", parts: [{ type: "tool-call", id: "st_1", name: "web_search", arguments: '{"query":"shannon"}' }] },
    { role: "tool", parts: [expect.objectContaining({ type: "tool-result", callId: "st_1", name: "web_search" })] },
    { role: "assistant", parts: [{ type: "text", text: "Petoskey." }] },
  ]);
});
