/**
 * The container tools through HTTP: a scripted model calls bash to write files, then files
 * list and read, then answers; the Messages result carries the tool blocks and `container`, whose id lists the same
 * files at `GET /containers/{id}/files`. Also: the stream's message_delta, Responses items for shell and apply_patch,
 * and engine native handing the call to the client. Runs on the default sandbox backend (just-bash).
 */
import { afterAll, beforeAll, beforeEach, describe, expect, test } from "bun:test";
import { ADMIN_KEY } from "../../support/gateway.ts";
import type { Script } from "../../support/scripted-model.ts";
import { MODEL, startAgentGateway, type AgentGateway } from "./setup.ts";

type Json = Record<string, any>;
let agent: AgentGateway;

beforeAll(async () => {
  agent = await startAgentGateway(() => ({ text: "unused" }));
});
afterAll(async () => {
  await agent.close();
});
beforeEach(() => {
  agent.upstream.bodies.length = 0;
});

/** The tool results the model has been given so far, parsed. */
const toolResults = (body: Json): Json[] => (body.messages as Json[]).filter((m) => m.role === "tool").map((m) => JSON.parse(m.content as string));

/** A script that makes the calls of `steps[n]` once the model has n tool results, then answers. */
const steps =
  (...plan: Array<(results: Json[]) => { name: string; args: Record<string, unknown> }>): Script =>
  (body) => {
    const results = toolResults(body);
    const next = plan[results.length];
    return next ? { calls: [next(results)] } : { text: "All done." };
  };

const WRITE = "mkdir -p out && printf 'a,b\\n1,2\\n' > out/report.csv && echo hello > notes.txt && echo wrote";
const writer = steps(
  () => ({ name: "bash", args: { command: WRITE } }),
  () => ({ name: "files", args: { operation: "list" } }),
  () => ({ name: "files", args: { operation: "read", filename: "out/report.csv" } }),
);
const messagesBody = (extra: Json = {}) => ({
  model: MODEL,
  max_tokens: 200,
  messages: [{ role: "user", content: "Write a report." }],
  tools: [{ type: "service:bash" }, { type: "service:files" }],
  ...extra,
});

describe("Messages", () => {
  test("bash writes files, files lists and reads them, the result names the container, the listing API agrees", async () => {
    agent.upstream.script = writer;
    const res = await agent.gw.request("/messages", { method: "POST", json: messagesBody() });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    const blocks = body.content as Json[];
    expect(blocks.map((b) => b.type)).toEqual([
      "server_tool_use",
      "service_bash_tool_result",
      "server_tool_use",
      "service_files_tool_result",
      "server_tool_use",
      "service_files_tool_result",
      "text",
    ]);
    const bash = blocks[1]!.content as Json;
    expect(bash).toMatchObject({ command: WRITE, stdout: "wrote\n", stderr: "", exitCode: 0 });
    const containerId = bash.container_id as string;
    expect(containerId).toMatch(/\S/);
    expect((blocks[3]!.content as Json).result.map((f: Json) => f.filename)).toEqual(["notes.txt", "out/report.csv"]);
    expect((blocks[5]!.content as Json).result).toBe("a,b\n1,2\n");
    expect(body.container).toEqual({ id: containerId, expires_at: expect.any(String), skills: null });
    expect(Date.parse(body.container.expires_at)).toBeGreaterThan(Date.now());

    const listing = await agent.gw.request(`/containers/${encodeURIComponent(containerId)}/files`, { key: ADMIN_KEY });
    expect(listing.status).toBe(200);
    const files = (await listing.json()) as Json;
    expect(files.data.map((f: Json) => f.path)).toEqual(["notes.txt", "out/report.csv"]);
    expect(files.data.map((f: Json) => f.id)).toEqual((blocks[3]!.content as Json).result.map((f: Json) => f.file_id));
  });

  test("a request that used no container has container: null", async () => {
    agent.upstream.script = () => ({ text: "No tools needed." });
    const body = (await (await agent.gw.request("/messages", { method: "POST", json: messagesBody() })).json()) as Json;
    expect(body.container).toBeNull();
  });

  test("a stream carries the container on message_delta", async () => {
    agent.upstream.script = writer;
    const res = await agent.gw.request("/messages", { method: "POST", json: messagesBody({ stream: true }) });
    const text = await res.text();
    const delta = text
      .split("\n\n")
      .filter((frame) => frame.startsWith("event: message_delta"))
      .map((frame) => JSON.parse(frame.slice(frame.indexOf("data: ") + 6)) as Json);
    expect(delta).toHaveLength(1);
    const container = delta[0]!.delta.container as Json;
    const id = container.id as string;
    expect(Object.keys(container).sort()).toEqual(["expires_at", "id", "skills"]);
    expect(container.skills).toBeNull();
    // The same id the bash result showed.
    expect(text).toContain(`"container_id":"${id}"`);
  });

  test("a referenced container is reused across requests: files written by one request are read by the next", async () => {
    agent.upstream.script = steps(() => ({ name: "bash", args: { command: "echo kept > kept.txt" } }));
    const first = (await (await agent.gw.request("/messages", { method: "POST", json: messagesBody() })).json()) as Json;
    const id = first.container.id as string;
    agent.upstream.script = steps(() => ({ name: "bash", args: { command: "cat kept.txt" } }));
    const tools = [{ type: "service:bash", parameters: { environment: { type: "container_reference", container_id: id } } }];
    const second = (await (await agent.gw.request("/messages", { method: "POST", json: messagesBody({ tools }) })).json()) as Json;
    expect(second.content[1].content).toMatchObject({ stdout: "kept\n", container_id: id });
    expect(second.container.id).toBe(id);
  });

  test("restart: a fresh, empty container with its own -r id; the result's container is the fresh one", async () => {
    agent.upstream.script = steps(
      () => ({ name: "bash", args: { command: "echo a > a.txt" } }),
      () => ({ name: "bash", args: { restart: true, command: "ls" } }),
    );
    const body = (await (await agent.gw.request("/messages", { method: "POST", json: messagesBody() })).json()) as Json;
    const first = body.content[1].content as Json;
    const fresh = body.content[3].content as Json;
    expect(fresh.container_id).not.toBe(first.container_id);
    expect(fresh.container_id).toMatch(/-r[A-Za-z0-9]+$/);
    expect(fresh.stdout).toBe("");
    expect(body.container.id).toBe(fresh.container_id);
  });

  test("engine native: the model's bash call goes back to the client as tool_use; nothing runs", async () => {
    agent.upstream.script = steps(() => ({ name: "bash", args: { command: "rm -rf /" } }));
    const tools = [{ type: "service:bash", parameters: { engine: "native" } }];
    const body = (await (await agent.gw.request("/messages", { method: "POST", json: messagesBody({ tools }) })).json()) as Json;
    expect(body.stop_reason).toBe("tool_use");
    expect(body.content).toEqual([{ type: "tool_use", id: expect.any(String), name: "bash", input: { command: "rm -rf /" } }]);
    expect(body.container).toBeNull();
    expect((agent.upstream.bodies[0]!.tools as Json[]).map((t) => t.function.name)).toEqual(["bash"]);
  });
});

describe("Responses", () => {
  test("shell and apply_patch items, then files reads the patched file", async () => {
    agent.upstream.script = steps(
      () => ({ name: "shell", args: { commands: ["printf 'one\\ntwo\\n' > list.txt", "cat list.txt", "exit 3"] } }),
      () => ({ name: "apply_patch", args: { operation: { type: "update_file", path: "list.txt", diff: "@@\n one\n-two\n+2\n" } } }),
      () => ({ name: "files", args: { operation: "read", filename: "list.txt" } }),
    );
    const tools = [{ type: "service:shell" }, { type: "service:apply_patch" }, { type: "service:files" }];
    const res = await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "Edit the list.", tools } });
    const body = (await res.json()) as Json;
    expect(res.status).toBe(200);
    const [shell, patch, read] = body.output as Json[];
    expect(shell).toMatchObject({
      type: "service:shell",
      status: "completed",
      action: { commands: ["printf 'one\\ntwo\\n' > list.txt", "cat list.txt", "exit 3"] },
      output: [
        { stdout: "", stderr: "", outcome: { type: "exit", exit_code: 0 } },
        { stdout: "one\ntwo\n", stderr: "", outcome: { type: "exit", exit_code: 0 } },
        { outcome: { type: "exit", exit_code: 3 } },
      ],
    });
    expect(patch).toMatchObject({ type: "service:apply_patch", status: "completed", operation: { type: "update_file", path: "list.txt" }, output: "Updated list.txt", container_id: shell!.container_id });
    expect(read).toMatchObject({ type: "service:files", operation: "read", filename: "list.txt", result: JSON.stringify("one\n2\n") });
  });

  test("a patch that does not fit is the model's error result, and the model sees why", async () => {
    agent.upstream.script = steps(() => ({ name: "apply_patch", args: { operation: { type: "update_file", path: "missing.txt", diff: "-a\n+b\n" } } }));
    const body = (await (await agent.gw.request("/responses", { method: "POST", json: { model: MODEL, input: "x", tools: [{ type: "service:apply_patch" }] } })).json()) as Json;
    expect(body.output[0]).toMatchObject({ type: "service:apply_patch", status: "failed", error: expect.stringContaining("cannot update missing.txt") });
    expect(toolResults(agent.upstream.bodies[1]!)[0]!.error).toContain("cannot update missing.txt");
  });
});
