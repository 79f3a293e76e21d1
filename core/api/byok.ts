/**
 * Bring your own keys (README "Bring your own keys"; the peer SDK's `byok.*`): `POST /byok`, `GET /byok`,
 * `GET|PATCH|DELETE /byok/{id}`. A credential belongs to the caller's workspace (the operator names another with
 * `workspace_id`), or to one key of it (`key_hash`, or the SDK's `allowed_api_key_hashes` with one hash). The key is
 * encrypted with GATEWAY_SECRET_KEY before it is stored; no answer carries more than its last four characters, and
 * nothing logs it. Without GATEWAY_SECRET_KEY, creating or replacing one is refused, naming the variable.
 */
import { Elysia, t } from "elysia";
import type { Authenticator } from "../auth/authenticate.ts";
import { ByokCipher } from "../byok/cipher.ts";
import type { Deps } from "../deps.ts";
import { errors, GatewayError } from "../errors.ts";
import { jsonResponse } from "../http/envelope.ts";
import { IntegerQuery, integerParam } from "../http/query.ts";
import { checkStorableText } from "../store/text.ts";
import type { ByokRecord } from "../store/types/byok.ts";
import { workspaceSettingsOf } from "../workspaces/settings-service.ts";
import { managementOnly } from "./management-only.ts";

const Secret = t.String({ minLength: 8, maxLength: 8_192 });
const Models = t.Union([t.Array(t.String({ minLength: 1, maxLength: 256 }), { maxItems: 1_000 }), t.Null()]);
const Hashes = t.Union([t.Array(t.String({ minLength: 1, maxLength: 128 }), { maxItems: 1 }), t.Null()]);
const common = {
  name: t.Optional(t.Union([t.String({ maxLength: 256 }), t.Null()])),
  disabled: t.Optional(t.Boolean()),
  is_byok_only: t.Optional(t.Boolean()),
  allowed_models: t.Optional(Models),
  // The peer's options this gateway does not have: accepted only with their neutral values (nothing is dropped).
  is_fallback: t.Optional(t.Boolean()),
  is_required: t.Optional(t.Boolean()),
  declared_zdr: t.Optional(t.Union([t.Boolean(), t.Null()])),
  allowed_user_ids: t.Optional(t.Union([t.Array(t.String()), t.Null()])),
};
const CreateBody = t.Object({
  provider: t.String({ minLength: 1, maxLength: 128 }),
  /** The provider key; `key` is the peer SDK's name for it. */
  api_key: t.Optional(Secret),
  key: t.Optional(Secret),
  /** A key-level credential: only this key's requests use it. */
  key_hash: t.Optional(t.String({ minLength: 1, maxLength: 128 })),
  allowed_api_key_hashes: t.Optional(Hashes),
  workspace_id: t.Optional(t.String({ minLength: 1, maxLength: 64 })),
  ...common,
});
const PatchBody = t.Object({ key: t.Optional(Secret), api_key: t.Optional(Secret), ...common });
const ListQuery = t.Object({ offset: IntegerQuery("Credentials to skip"), limit: IntegerQuery("Page size, 1 to 100 (default 50)"), provider: t.Optional(t.String()) });

function refuseUnsupported(body: { is_fallback?: boolean; is_required?: boolean; declared_zdr?: boolean | null; allowed_user_ids?: string[] | null }): void {
  const bad = body.is_fallback === true ? "is_fallback" : body.is_required === true ? "is_required" : body.declared_zdr === true ? "declared_zdr" : body.allowed_user_ids?.length ? "allowed_user_ids" : undefined;
  if (bad) throw errors.invalid(`${bad}: not available in this gateway (README "Bring your own keys")`, { param: bad });
}

/** What the API shows of a credential: never the key, only its last four characters. */
export function byokView(r: ByokRecord) {
  return {
    id: r.id,
    provider: r.provider,
    name: r.name,
    label: `…${r.last4}`,
    workspace_id: r.workspaceId,
    allowed_api_key_hashes: r.keyHash ? [r.keyHash] : null,
    allowed_models: r.allowedModels,
    allowed_user_ids: null,
    declared_zdr: null,
    disabled: r.disabled,
    is_byok_only: r.byokOnly,
    is_fallback: false,
    is_required: false,
    sort_order: 0,
    created_at: new Date(r.createdAt).toISOString(),
    updated_at: new Date(r.updatedAt).toISOString(),
  };
}

export function byokRoutes(deps: Deps, auth: Authenticator) {
  const cipher = deps.config.secretKey ? new ByokCipher(deps.config.secretKey) : undefined;
  const needCipher = (): ByokCipher => {
    if (!cipher) throw new GatewayError("invalid_request", "Provider keys cannot be stored: set GATEWAY_SECRET_KEY (32 bytes as 64 hexadecimal characters) on every gateway process", { status: 400, metadata: { setting: "GATEWAY_SECRET_KEY" } });
    return cipher;
  };
  const changed = (workspaceId: string) => workspaceSettingsOf(deps).invalidate(workspaceId);
  const own = async (workspaceId: string, id: string) => {
    const record = await deps.store.byok.get(id, workspaceId);
    if (!record) throw errors.notFound("BYOK credential not found");
    return record;
  };
  const last4 = (secret: string) => secret.slice(-4);

  return new Elysia({ name: "routes:byok" })
    .use(managementOnly(auth, deps.store.workspaces))
    .guard({ management: true })
    .post(
      "/byok",
      async ({ body, principal }) => {
        const cipher = needCipher();
        refuseUnsupported(body);
        const secret = body.api_key ?? body.key;
        if (!secret) throw errors.invalid("api_key: required (the provider's key; `key` is accepted too)", { param: "api_key" });
        if (!deps.config.providers.some((p) => p.id === body.provider)) throw errors.invalid(`provider: no provider "${body.provider}" is configured`, { param: "provider" });
        checkStorableText(body.name ?? undefined, "name");
        const keyHash = body.key_hash ?? body.allowed_api_key_hashes?.[0] ?? null;
        if (keyHash !== null) {
          const key = await deps.store.keys.findByHash(keyHash);
          if (!key || key.workspaceId !== principal.workspaceId) throw errors.notFound("API key not found");
        }
        const id = crypto.randomUUID();
        const record = await deps.store.byok.create({
          id,
          workspaceId: principal.workspaceId,
          keyHash,
          provider: body.provider,
          name: body.name ?? null,
          secret: cipher.encrypt(secret, id),
          last4: last4(secret),
          byokOnly: body.is_byok_only ?? true,
          disabled: body.disabled ?? false,
          allowedModels: body.allowed_models ?? null,
        });
        await changed(principal.workspaceId);
        return jsonResponse({ data: byokView(record) }, 201);
      },
      { body: CreateBody, parse: "json", detail: { summary: "Store a provider key (BYOK)", tags: ["byok"] } },
    )
    .get(
      "/byok",
      async ({ query, principal }) => {
        const offset = integerParam("offset", query.offset, { min: 0, max: Number.MAX_SAFE_INTEGER, fallback: 0 });
        const limit = integerParam("limit", query.limit, { min: 1, max: 100, fallback: 50 });
        const page = await deps.store.byok.list(principal.workspaceId, { offset, limit, ...(query.provider ? { provider: query.provider } : {}) });
        return { data: page.data.map(byokView), total_count: page.total };
      },
      { query: ListQuery, detail: { summary: "List provider keys (BYOK)", tags: ["byok"] } },
    )
    .get("/byok/:id", async ({ params, principal }) => ({ data: byokView(await own(principal.workspaceId, params.id)) }), {
      detail: { summary: "Get a provider key (BYOK)", tags: ["byok"] },
    })
    .patch(
      "/byok/:id",
      async ({ params, body, principal }) => {
        refuseUnsupported(body);
        await own(principal.workspaceId, params.id);
        const secret = body.api_key ?? body.key;
        checkStorableText(body.name ?? undefined, "name");
        const updated = await deps.store.byok.update(params.id, principal.workspaceId, {
          ...(secret !== undefined ? { secret: needCipher().encrypt(secret, params.id), last4: last4(secret) } : {}),
          ...(body.name !== undefined ? { name: body.name } : {}),
          ...(body.disabled !== undefined ? { disabled: body.disabled } : {}),
          ...(body.is_byok_only !== undefined ? { byokOnly: body.is_byok_only } : {}),
          ...(body.allowed_models !== undefined ? { allowedModels: body.allowed_models } : {}),
        });
        await changed(principal.workspaceId);
        return { data: byokView(updated!) };
      },
      { body: PatchBody, parse: "json", detail: { summary: "Update a provider key (BYOK)", tags: ["byok"] } },
    )
    .delete(
      "/byok/:id",
      async ({ params, principal }) => {
        if (!(await deps.store.byok.delete(params.id, principal.workspaceId))) throw errors.notFound("BYOK credential not found");
        await changed(principal.workspaceId);
        return { deleted: true };
      },
      { detail: { summary: "Delete a provider key (BYOK)", tags: ["byok"] } },
    );
}
