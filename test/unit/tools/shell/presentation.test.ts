/**
 * How the container tools' calls reach clients: Responses items, Messages
 * result blocks (`service_<tool>_tool_result`), and the Messages result's `container`, in a whole
 * result and on the stream's `message_delta`.
 */
import { describe, expect, test } from "bun:test";
import { messagesFormat } from "../../../../core/formats/messages/index.ts";
import { serverToolResultBlock } from "../../../../core/formats/messages/server-tool-blocks.ts";
import { serverToolItem } from "../../../../core/formats/responses/output-items.ts";
import type { StreamEvent } from "../../../../core/model/events.ts";
import type { ServerToolPart } from "../../../../core/model/parts.ts";
import type { CanonicalResponse } from "../../../../core/model/response.ts";
import type { Trailer } from "../../../../core/pipeline/outcome.ts";
import { encodeContext, frames, parseFrame, usage } from "../../formats/messages/helpers.ts";

const part = (name: string, args: Record<string, unknown>, result: unknown, error?: string): ServerToolPart => ({
  type: "server-tool",
  id: "st_1",
  callId: "call_1",
  name,
  arguments: JSON.stringify(args),
  status: error === undefined ? "completed" : "failed",
  ...(result === undefined ? {} : { result }),
  ...(error === undefined ? {} : { error }),
});

const envelope = (name: string, args: Record<string, unknown>, status = "completed") => ({ type: name, id: "st_1", call_id: "call_1", status, arguments: JSON.stringify(args) });

describe("Responses items", () => {
  test("bash: command, stdout, stderr, exitCode, container_id; a failed call still shows its command", () => {
    const args = { command: "ls" };
    const result = { command: "ls", stdout: "a.txt\n", stderr: "", exitCode: 0, container_id: "ctr_1" };
    expect(serverToolItem(part("service:bash", args, result))).toEqual({ ...envelope("service:bash", args), ...result });
    expect(serverToolItem(part("service:bash", { commands: ["a", "b"] }, undefined, "unknown container"))).toEqual({
      ...envelope("service:bash", { commands: ["a", "b"] }, "failed"),
      command: "a\nb",
      error: "unknown container",
    });
  });

  test("shell: action from the arguments, output and container_id from the result", () => {
    const args = { commands: ["pwd"], timeout_ms: 1000 };
    const output = [{ stdout: "/\n", stderr: "", outcome: { type: "exit", exit_code: 0 } }];
    expect(serverToolItem(part("service:shell", args, { output, container_id: "ctr_1" }))).toEqual({
      ...envelope("service:shell", args),
      action: { commands: ["pwd"], timeout_ms: 1000 },
      output,
      container_id: "ctr_1",
    });
  });

  test("files: operation, file_id, filename and result as a JSON string", () => {
    const args = { operation: "read", filename: "a.txt" };
    const result = { file_id: "cfile_YS50eHQ", filename: "a.txt", result: "hi\n", container_id: "ctr_1" };
    expect(serverToolItem(part("service:files", args, result))).toEqual({
      ...envelope("service:files", args),
      operation: "read",
      file_id: "cfile_YS50eHQ",
      filename: "a.txt",
      result: '"hi\\n"',
      container_id: "ctr_1",
    });
    expect(serverToolItem(part("service:files", { operation: "read", filename: "b" }, undefined, "no such file"))).toMatchObject({ operation: "read", filename: "b", error: "no such file" });
  });

  test("apply_patch: the operation as asked (or the one a whole patch touched), output, container_id", () => {
    const operation = { type: "update_file", path: "a.txt", diff: "-a\n+b\n" };
    const result = { status: "completed", output: "Updated a.txt", operations: [{ type: "update_file", path: "a.txt" }], container_id: "ctr_1" };
    expect(serverToolItem(part("service:apply_patch", { operation }, result))).toEqual({ ...envelope("service:apply_patch", { operation }), operation, output: "Updated a.txt", container_id: "ctr_1" });
    const two = { ...result, operations: [{ type: "create_file", path: "x" }, { type: "delete_file", path: "y" }] };
    expect(serverToolItem(part("service:apply_patch", { patch: "…" }, two))).toMatchObject({ operations: two.operations, output: "Updated a.txt" });
    expect(serverToolItem(part("service:apply_patch", { patch: "…" }, result))).toMatchObject({ operation: { type: "update_file", path: "a.txt" } });
  });
});

describe("Messages", () => {
  test("result blocks carry what the model saw", () => {
    const result = { command: "ls", stdout: "", stderr: "", exitCode: 0, container_id: "ctr_1" };
    expect(serverToolResultBlock(part("service:bash", { command: "ls" }, result))).toEqual({ type: "service_bash_tool_result", tool_use_id: "st_1", content: result });
    expect(serverToolResultBlock(part("service:shell", { commands: ["x"] }, undefined, "boom"))).toEqual({ type: "service_shell_tool_result", tool_use_id: "st_1", content: { error: "boom" } });
  });

  const response: CanonicalResponse = {
    id: "x",
    model: "m",
    provider: "p",
    created: 1_700_000_000,
    parts: [{ type: "text", text: "done" }],
    finish: { reason: "stop" },
    usage: usage(1, 1),
    warnings: [],
  };
  const used = { id: "sess_abc-r1", expiresAt: 1_767_225_600 };

  test("the result's container: {id, expires_at (ISO 8601), skills: null} when one was used, else null", () => {
    expect(messagesFormat.encode(response, encodeContext({ trailer: { container: used } })).container).toEqual({ id: "sess_abc-r1", expires_at: "2026-01-01T00:00:00.000Z", skills: null });
    expect(messagesFormat.encode(response, encodeContext({ trailer: {} })).container).toBeNull();
    expect(messagesFormat.encode(response, encodeContext()).container).toBeNull();
  });

  test("a stream carries it on message_delta, read when the stream ends (message_start is too early to know)", async () => {
    const trailer: Trailer = {};
    const events: StreamEvent[] = [
      { type: "start", id: "m1", model: "m", provider: "p", created: 1_700_000_000 },
      { type: "text-start", id: "t" },
      { type: "text-delta", id: "t", delta: "ok" },
      { type: "text-end", id: "t" },
      { type: "usage", usage: usage(1, 1) },
      { type: "finish", finish: { reason: "stop" } },
    ];
    const ctx = encodeContext({ trailer });
    const out: string[] = [];
    for await (const frame of messagesFormat.stream(
      (async function* () {
        for (const event of events) {
          if (event.type === "finish") trailer.container = used; // the edge settles the trailer as the finish passes
          yield event;
        }
      })(),
      ctx,
    ))
      out.push(frame);
    const parsed = out.map(parseFrame);
    expect((parsed.find((f) => f.event === "message_start")!.data.message as Record<string, unknown>).container).toBeNull();
    expect((parsed.find((f) => f.event === "message_delta")!.data.delta as Record<string, unknown>).container).toEqual({ id: "sess_abc-r1", expires_at: "2026-01-01T00:00:00.000Z", skills: null });
    expect((await frames(events)).map(parseFrame).find((f) => f.event === "message_delta")!.data.delta).toMatchObject({ container: null });
  });
});
