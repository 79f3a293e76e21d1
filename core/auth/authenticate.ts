/** Resolves request credentials to a Principal (spec "Authentication"): Bearer token or `x-api-key`. */
import { errors, GatewayError } from "../errors.ts";
import type { Deps } from "../deps.ts";
import { hashSecret, sameHash } from "./key-material.ts";
import type { Principal } from "./principal.ts";

/** The credential sent, from `Authorization: Bearer …` or (Anthropic clients) `x-api-key`. */
export function credentialOf(headers: Headers): string | undefined {
  const authorization = headers.get("authorization");
  if (authorization) {
    const match = /^Bearer\s+(.+)$/i.exec(authorization.trim());
    return match?.[1]?.trim() || undefined;
  }
  return headers.get("x-api-key")?.trim() || undefined;
}

export interface Authenticator {
  authenticate(headers: Headers): Promise<Principal>;
}

export function createAuthenticator(deps: Pick<Deps, "config" | "keyCache" | "clock">, defaultWorkspaceId: string): Authenticator {
  // Hash of the env admin key, computed once at start-up.
  const adminHash = deps.config.adminKey ? hashSecret(deps.config.adminKey) : undefined;
  return {
    async authenticate(headers) {
      const secret = credentialOf(headers);
      if (!secret) throw errors.unauthenticated("Missing authentication header");
      const hash = hashSecret(secret);
      if (adminHash && sameHash(hash, adminHash)) {
        return { keyHash: adminHash, name: "GATEWAY_ADMIN_KEY", workspaceId: defaultWorkspaceId, isManagement: true, isOperator: true, record: undefined };
      }
      const record = await deps.keyCache.get(hash);
      if (!record || !sameHash(hash, record.hash)) throw new GatewayError("authentication", "Invalid API key");
      if (record.disabled) throw new GatewayError("authentication", "API key is disabled");
      if (record.expiresAt !== null && record.expiresAt <= deps.clock.now()) {
        throw new GatewayError("authentication", "API key has expired");
      }
      return { keyHash: record.hash, name: record.name, workspaceId: record.workspaceId, isManagement: record.isManagement, isOperator: record.isOperator === true, record };
    },
  };
}

/** 403 unless the caller holds a management key. */
export function requireManagement(principal: Principal): void {
  if (!principal.isManagement) throw errors.forbidden("Only management keys can perform this operation");
}

/** 403 for management keys: they administer, they do not run inference. */
export function requireInference(principal: Principal): void {
  if (principal.isManagement) throw errors.forbidden("Management keys cannot be used for inference; use an inference key");
}
