/** Creating a preset or a new version of one from an inference body (spec endpoints 3–4). */
import type { Principal } from "../auth/principal.ts";
import type { Deps } from "../deps.ts";
import { GatewayError } from "../errors.ts";
import type { InboundFormat } from "../model/request.ts";
import { checkStorableText } from "../store/text.ts";
import type { PresetRecord } from "../store/types/presets.ts";
import { isRecord, type Json } from "./json.ts";
import { applyPresetReference } from "./resolve.ts";
import { checkSlug } from "./slug.ts";
import { systemPromptOf } from "./system-prompt.ts";
import { toConfig } from "./translate.ts";

/** Where each format carries the system prompt. */
const SYSTEM_FIELD: Record<InboundFormat, string> = { chat: "messages", messages: "system", responses: "instructions" };

/**
 * Stores the overlapping fields of `body` as a new version of preset `slug` (created when missing) and makes it the
 * designated version. A body that itself names a preset is flattened first (so a preset can start from another);
 * naming an unknown preset is 404. No inference runs.
 */
export async function createPresetVersion(deps: Pick<Deps, "store" | "clock">, principal: Principal, format: InboundFormat, slug: string, body: unknown): Promise<PresetRecord> {
  checkSlug(slug);
  const source: Json = isRecord(body) ? { ...body } : {};
  await applyPresetReference(deps.store.presets, principal.workspaceId, format, source);
  const systemPrompt = systemPromptOf(format, source);
  checkStorableText(systemPrompt, SYSTEM_FIELD[format]);
  const created = await deps.store.presets.createVersion({
    workspaceId: principal.workspaceId,
    slug,
    config: toConfig(format, source),
    systemPrompt,
    // There are no user accounts: the creating key's hash identifies the creator without revealing it.
    creatorId: principal.keyHash,
    now: deps.clock.now(),
  });
  if (created === "conflict") {
    // Spec "Errors" 409.
    throw new GatewayError("precondition_failed", "Resource conflict, try again later: concurrent updates of this preset", { status: 409 });
  }
  return created;
}
