/**
 * The scripted upstream of bench/stall.ts, in its own process (a big prompt it parses must not slow the bench's
 * probes): `[call NAME {json}]` in the last user message makes it call tool NAME with those arguments on the first
 * turn (web_fetch of a hostile page, a sandbox command…); `[say TEXT]` makes it answer TEXT (a reply a plugin must
 * check); anything else, and every turn after a tool result, is "ok".
 */
import { startScriptedModel } from "../test/support/scripted-model.ts";
import { announce } from "./child.ts";

type Message = { role: string; content?: unknown };

const model = startScriptedModel((body) => {
  model.bodies.length = 0; // nothing is read back: keep memory flat over a long run
  const messages = body.messages as Message[];
  if (messages.some((m) => m.role === "tool")) return { text: "ok" };
  const last = messages.findLast((m) => m.role === "user");
  const text = typeof last?.content === "string" ? last.content : JSON.stringify(last?.content ?? "");
  const head = text.slice(0, 10_000);
  const say = /\[say ([^\]]*)\]/.exec(head);
  if (say) return { text: say[1]! };
  const directive = /\[call (\S+) (\{[^\]]*\})\]/.exec(head);
  return directive ? { calls: [{ name: directive[1]!, args: JSON.parse(directive[2]!) as Record<string, unknown> }] } : { text: "ok" };
});
process.on("SIGTERM", () => (model.stop(), process.exit(0)));
announce(Number(new URL(model.baseUrl).port), { url: model.baseUrl });
