/**
 * Where a Bedrock endpoint's credentials come from (README "Cloud providers"): the config's `api_key` (a Bedrock API
 * key, sent as a bearer token) or `credentials` (AWS access keys), fixed at start-up; or, with neither, the standard
 * AWS sources in the SDKs' order — `AWS_BEARER_TOKEN_BEDROCK`, then `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY` /
 * `AWS_SESSION_TOKEN`, then the profile (`AWS_PROFILE`, else `default`) of the shared credentials file
 * (`AWS_SHARED_CREDENTIALS_FILE`, else `~/.aws/credentials`). Those are read once and kept, and read again when they
 * may have changed: the file's modification time moved (looked at no more than every few seconds), the environment's
 * `AWS_CREDENTIAL_EXPIRATION` passed, or AWS refused a signature as expired or unknown (`invalidate`), so temporary
 * session credentials a tool refreshes on disk are picked up without a restart. Messages name variables and paths,
 * never a secret.
 */
import { readFileSync, statSync } from "node:fs";
import { homedir } from "node:os";
import { join } from "node:path";

export interface AwsCredentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

/** How one call authenticates: a Bedrock API key as a bearer token, or a SigV4 signature with AWS credentials. */
export type BedrockAuth = { kind: "bearer"; token: string } | { kind: "sigv4"; credentials: AwsCredentials };

/** No credentials could be found; the message says where the adapter looked. */
export class CredentialError extends Error {
  override readonly name = "CredentialError";
}

export interface CredentialSource {
  /** The authentication of the next call; throws CredentialError when there is none. */
  auth(now: number): BedrockAuth;
  /** AWS refused the credentials (expired session, unknown key): read them again before the next call. */
  invalidate(): void;
}

/** What the ambient chain reads: the environment, the home directory and files (injectable for tests). */
export interface CredentialEnvironment {
  env: Record<string, string | undefined>;
  home(): string;
  /** The file's text, or undefined when it cannot be read. */
  readFile(path: string): string | undefined;
  /** The file's modification time in ms, or undefined when it does not exist. */
  mtime(path: string): number | undefined;
}

export const processEnvironment: CredentialEnvironment = {
  env: process.env,
  home: () => process.env.HOME || homedir(),
  readFile(path) {
    try {
      return readFileSync(path, "utf8");
    } catch {
      return undefined;
    }
  },
  mtime(path) {
    try {
      return statSync(path).mtimeMs;
    } catch {
      return undefined;
    }
  },
};

/** Credentials that never change (from the config). */
export function fixedCredentials(auth: BedrockAuth): CredentialSource {
  return { auth: () => auth, invalidate: () => undefined };
}

/** How often, at most, the shared credentials file is looked at for a change. */
const FILE_RECHECK_MS = 5_000;

interface Found {
  auth: BedrockAuth;
  /** When these must be read again (the environment's AWS_CREDENTIAL_EXPIRATION). */
  expiresAt?: number;
  /** The file they came from and its modification time. */
  file?: { path: string; mtime: number | undefined };
}

/** The standard AWS sources, read lazily and again when they may have changed. */
export class AmbientCredentials implements CredentialSource {
  private found: Found | undefined;
  private fileCheckedAt = 0;

  constructor(private readonly environment: CredentialEnvironment = processEnvironment) {}

  auth(now: number): BedrockAuth {
    if (this.found === undefined || this.stale(this.found, now)) this.found = this.read(now);
    return this.found.auth;
  }

  invalidate(): void {
    this.found = undefined;
  }

  private stale(found: Found, now: number): boolean {
    if (found.expiresAt !== undefined && now >= found.expiresAt) return true;
    if (found.file === undefined || now - this.fileCheckedAt < FILE_RECHECK_MS) return false;
    this.fileCheckedAt = now;
    return this.environment.mtime(found.file.path) !== found.file.mtime;
  }

  private read(now: number): Found {
    const env = this.environment.env;
    const bearer = value(env.AWS_BEARER_TOKEN_BEDROCK);
    if (bearer !== undefined) return { auth: { kind: "bearer", token: bearer } };
    const accessKeyId = value(env.AWS_ACCESS_KEY_ID);
    const secretAccessKey = value(env.AWS_SECRET_ACCESS_KEY);
    if (accessKeyId !== undefined && secretAccessKey !== undefined) {
      const found: Found = { auth: { kind: "sigv4", credentials: withToken({ accessKeyId, secretAccessKey }, value(env.AWS_SESSION_TOKEN)) } };
      const expiration = Date.parse(value(env.AWS_CREDENTIAL_EXPIRATION) ?? "");
      if (Number.isFinite(expiration)) found.expiresAt = expiration;
      return found;
    }
    const path = value(env.AWS_SHARED_CREDENTIALS_FILE) ?? join(this.environment.home(), ".aws", "credentials");
    const profile = value(env.AWS_PROFILE) ?? "default";
    const mtime = this.environment.mtime(path);
    const text = this.environment.readFile(path);
    const section = text === undefined ? undefined : profileOf(text, profile);
    const keyId = value(section?.aws_access_key_id);
    const secret = value(section?.aws_secret_access_key);
    if (keyId !== undefined && secret !== undefined) {
      this.fileCheckedAt = now;
      return { auth: { kind: "sigv4", credentials: withToken({ accessKeyId: keyId, secretAccessKey: secret }, value(section?.aws_session_token)) }, file: { path, mtime } };
    }
    const where = text === undefined ? `${path} (not readable)` : section === undefined ? `profile "${profile}" of ${path} (no such profile)` : `profile "${profile}" of ${path} (no aws_access_key_id and aws_secret_access_key)`;
    throw new CredentialError(
      `none given, and none found in the environment (AWS_BEARER_TOKEN_BEDROCK, or AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY) or in ${where}`,
    );
  }
}

/** An environment value, an empty one counting as unset. */
function value(text: string | undefined): string | undefined {
  const trimmed = text?.trim();
  return trimmed ? trimmed : undefined;
}

function withToken(credentials: AwsCredentials, sessionToken: string | undefined): AwsCredentials {
  return sessionToken === undefined ? credentials : { ...credentials, sessionToken };
}

/** The keys of `[profile]` in an AWS credentials file (INI: `key = value`, `#` and `;` comments). */
export function profileOf(text: string, profile: string): Record<string, string> | undefined {
  let current: Record<string, string> | undefined;
  let found: Record<string, string> | undefined;
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue;
    const header = /^\[\s*([^\]]+?)\s*\]$/.exec(line);
    if (header) {
      current = header[1] === profile ? (found ??= {}) : undefined;
      continue;
    }
    const eq = line.indexOf("=");
    if (current === undefined || eq <= 0) continue;
    current[line.slice(0, eq).trim().toLowerCase()] = line.slice(eq + 1).trim();
  }
  return found;
}

/** The one ambient chain of this process (environment and files are the process's, whichever endpoint reads them). */
export const ambientCredentials = new AmbientCredentials();
