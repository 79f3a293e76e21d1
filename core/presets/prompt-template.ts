/**
 * Prompt templates (Responses `prompt: {id, variables?, version?}`; spec "Responses request"): the id
 * names a preset of the caller's workspace, the stored template. Its system prompt is rendered with the variables and
 * the preset is applied like a named preset (apply.ts: its config under the request), so every upstream — not only
 * an OpenAI Responses one — receives the rendered text. Runs on the body before validation, as presets do.
 *
 * Presets store no messages, so the template is the system prompt: before the request's own `instructions` when the
 * request has `input`; alone (no `input`) it is the conversation's one user turn, since Anthropic and Gemini refuse
 * a conversation without one. The `prompt` field stays in the body so the result echoes it; decode never forwards it.
 */
import { errors, GatewayError } from "../errors.ts";
import type { InboundFormat } from "../model/request.ts";
import type { PresetRepo, PresetVersionRecord } from "../store/types/presets.ts";
import { mergePreset } from "./apply.ts";
import { isRecord, type Json } from "./json.ts";
import { presetReferenceOf } from "./reference.ts";
import { isSlug } from "./slug.ts";
import { renderTemplate } from "./template-text.ts";

/** A positive integer, written as a string (OpenAI's `version: "2"`) or a number. */
function versionNumber(value: unknown): number {
  const text = typeof value === "number" ? String(value) : value;
  if (typeof text !== "string" || !/^[1-9][0-9]{0,8}$/.test(text)) {
    throw errors.invalid("prompt.version: must be a preset version number (1, 2, …)", { param: "prompt.version" });
  }
  return Number(text);
}

/** The template's version: `version` when given, else the preset's designated one; unknown ones are 404. */
async function templateVersion(presets: PresetRepo, workspaceId: string, id: string, version: unknown): Promise<PresetVersionRecord> {
  // An id that is no valid slug cannot name a preset: not found, like any other unknown id.
  const preset = isSlug(id) ? await presets.get(workspaceId, id) : undefined;
  if (!preset) throw new GatewayError("not_found", `Prompt template not found: "${id}" names no preset of this workspace`, { metadata: { param: "prompt.id" } });
  if (version === undefined || version === null) return preset.designatedVersion;
  const number = versionNumber(version);
  const found = await presets.getVersion(preset.id, number);
  if (!found) throw new GatewayError("not_found", `Prompt template "${id}" has no version ${number}`, { metadata: { param: "prompt.version" } });
  return found;
}

/**
 * When a Responses body carries `prompt`, replaces its contents in place with the rendered template applied (in
 * place because the HTTP edge validates the very object it parsed). A malformed `prompt` or `model` is left for
 * schema validation to reject. Returns the template (preset version) applied, if any.
 */
export async function applyPromptTemplate(presets: PresetRepo, workspaceId: string, format: InboundFormat, body: unknown): Promise<PresetVersionRecord | undefined> {
  if (format !== "responses" || !isRecord(body) || !isRecord(body.prompt)) return undefined;
  const { id, variables, version } = body.prompt;
  if (typeof id !== "string" || id === "" || (variables != null && !isRecord(variables))) return undefined;
  if (body.model !== undefined && typeof body.model !== "string") return undefined;
  if (presetReferenceOf(body) !== undefined) {
    throw errors.invalid("prompt: a request uses either a prompt template or a preset (`preset`, `@preset/…`), not both", { param: "prompt" });
  }
  const stored = await templateVersion(presets, workspaceId, id, version);
  const text = stored.systemPrompt === null ? null : renderTemplate(stored.systemPrompt, isRecord(variables) ? variables : {});
  const alone = body.input === undefined || body.input === null;
  const merged: Json = mergePreset(format, body, { config: stored.config, systemPrompt: alone ? null : text }, body.model);
  if (alone && text) merged.input = [{ role: "user", content: text }];
  for (const key of Object.keys(body)) delete body[key];
  Object.assign(body, merged);
  return stored;
}
