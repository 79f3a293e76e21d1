/** A gateway whose one model is the scripted upstream (test/support/scripted-model.ts), plus the test tools extension. */
import type { ConfigFile } from "../../../core/config/file-schema.ts";
import { startTestGateway, type TestGateway, type TestGatewayOptions } from "../../support/gateway.ts";
import { startScriptedModel, type Script, type ScriptedModel, type ScriptedReply } from "../../support/scripted-model.ts";

export const MODEL = "acme/agent";
/** USD per token. */
export const PRICING = { prompt: 0.000001, completion: 0.000002 };

export interface AgentGateway {
  gw: TestGateway;
  upstream: ScriptedModel;
  close(): Promise<void>;
}

export async function startAgentGateway(script: Script, file: ConfigFile = {}, options: Omit<TestGatewayOptions, "file"> = {}): Promise<AgentGateway> {
  const upstream = startScriptedModel(script);
  const gw = await startTestGateway({
    ...options,
    file: {
      providers: [{ id: "acme", adapter: "openai", base_url: upstream.baseUrl, api_key: "k", models: [{ id: MODEL, upstream_model: "m", pricing: PRICING, context_length: 100000 }] }],
      extensions: ["./test/fixtures/extensions/test-tools.ts"],
      ...file,
    },
  });
  return { gw, upstream, close: async () => (await gw.close(), upstream.stop()) };
}

type Message = { role: string; content?: unknown; tool_calls?: Array<{ function: { name: string } }> };

/** The messages the upstream received in request `index`. */
export function messagesOf(upstream: ScriptedModel, index: number): Message[] {
  return upstream.bodies[index]!.messages as Message[];
}

/** A script that calls `calls` on every turn until the tool results number `steps`, then answers. */
export function callsFor(steps: number, calls: Array<{ name: string; args?: Record<string, unknown> }>, answer = "Done."): Script {
  return (body): ScriptedReply => {
    const messages = body.messages as Message[];
    const done = messages.filter((m) => m.role === "assistant" && m.tool_calls?.length).length;
    return done >= steps || body.tool_choice === "none" ? { text: answer } : { calls };
  };
}
