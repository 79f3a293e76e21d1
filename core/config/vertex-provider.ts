/**
 * The Google Vertex AI fields of a provider entry (README "Google Vertex AI"): `project`, `location`, `token_url`,
 * the `credentials` Vertex takes (`service_account_file`, `service_account`, `access_token`, `metadata_server`) and a
 * model entry's `publisher`. Checked once at start-up — the key file read, secrets read from the environment, a key that cannot be
 * used refused naming its field — and handed to the `vertex` adapter as its options. No key material reaches an
 * error message.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, resolve } from "node:path";
import { Type } from "@sinclair/typebox";

const Secret = Type.Union([Type.String({ minLength: 1 }), Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false })]);
type SecretValue = string | { env: string };

/** `credentials` of a Vertex entry: one of a key file, the key's JSON (inline or in a variable), a token, the metadata server. */
export const VertexCredentialsSchema = Type.Object(
  {
    /** A service-account key file (JSON, as the console downloads it); relative to the config file. */
    service_account_file: Type.Optional(Type.String({ minLength: 1 })),
    /** The key file's JSON itself, or `{"env": NAME}` naming a variable that holds it. */
    service_account: Type.Optional(Type.Union([Type.Object({ env: Type.String({ minLength: 1 }) }, { additionalProperties: false }), Type.Record(Type.String(), Type.Unknown())])),
    /** A fixed OAuth 2 access token (`gcloud auth print-access-token`), used as it is. */
    access_token: Type.Optional(Secret),
    /** `true`: the attached service account's tokens from the metadata server (on a Google Cloud VM, Cloud Run, GKE). */
    metadata_server: Type.Optional(Type.Literal(true)),
  },
  { additionalProperties: false },
);

/** The provider-entry fields only the `vertex` adapter reads. */
export const VertexProviderFields = {
  /** The Google Cloud project (default: the service-account key's `project_id`). */
  project: Type.Optional(Type.String({ minLength: 1, pattern: "^[a-z0-9.:-]+$" })),
  /** The Vertex AI location (`us-central1`, `europe-west4`, `global`); shown as the provider's region. */
  location: Type.Optional(Type.String({ minLength: 1, pattern: "^[a-z0-9-]+$" })),
  /** Google's token endpoint (default: the key file's `token_uri`, else `https://oauth2.googleapis.com/token`). */
  token_url: Type.Optional(Type.String({ pattern: "^https?://" })),
};

/** A model entry's publisher on Vertex (default: `anthropic` for `claude…` models, else `google`). */
export const VertexPublisherSchema = Type.Union([Type.Literal("google"), Type.Literal("anthropic")]);

type Json = Record<string, unknown>;

interface VertexEntry {
  adapter: string;
  api_key?: unknown;
  region?: string | undefined;
  project?: string | undefined;
  location?: string | undefined;
  token_url?: string | undefined;
  credentials?: Json | undefined;
  models?: ReadonlyArray<{ id: string; upstream_model?: string | undefined; publisher?: "google" | "anthropic" | undefined }> | undefined;
}

/** What the adapter receives in its options (secrets already read), and the location shown as the region. */
export interface VertexFields {
  options: {
    project?: string;
    location: string;
    token_url?: string;
    service_account?: { client_email: string; private_key: string; private_key_id?: string; project_id?: string; token_uri?: string };
    access_token?: string;
    metadata_server?: true;
    publishers?: Record<string, "google" | "anthropic">;
  };
  region: string;
}

const VERTEX_CREDENTIALS = ["service_account_file", "service_account", "access_token", "metadata_server"] as const;

/**
 * The Vertex options of an entry, or undefined for another adapter (which may not use the Vertex fields). `env` is
 * the environment (`GOOGLE_APPLICATION_CREDENTIALS` when the entry names no credentials); `configDir` resolves a
 * relative key file.
 */
export function toVertexFields(
  entry: VertexEntry,
  where: string,
  env: Record<string, string | undefined>,
  configDir: string,
  secret: (value: SecretValue, field: string) => string | undefined,
  fail: (message: string) => Error,
): VertexFields | undefined {
  if (entry.adapter !== "vertex") {
    for (const field of ["project", "location", "token_url"] as const) {
      if (entry[field] !== undefined) throw fail(`invalid config field "${where}.${field}": only the "vertex" adapter takes it`);
    }
    for (const field of VERTEX_CREDENTIALS) {
      if (entry.credentials?.[field] !== undefined) throw fail(`invalid config field "${where}.credentials.${field}": only the "vertex" adapter takes it`);
    }
    (entry.models ?? []).forEach((model, j) => {
      if (model.publisher !== undefined) throw fail(`invalid config field "${where}.models[${j}].publisher": only the "vertex" adapter takes it`);
    });
    return undefined;
  }
  if (entry.api_key !== undefined) throw fail(`invalid config field "${where}.api_key": the "vertex" adapter takes credentials (service_account_file, service_account or access_token)`);
  if (entry.location !== undefined && entry.region !== undefined && entry.location !== entry.region) {
    throw fail(`invalid config field "${where}.region": give location (or region), not two different ones`);
  }
  const location = entry.location ?? entry.region;
  if (location === undefined) throw fail(`invalid config field "${where}.location": required by the "vertex" adapter (e.g. us-central1 or global)`);
  const options: VertexFields["options"] = { location };
  const credentials = entry.credentials ?? {};
  const given = VERTEX_CREDENTIALS.filter((field) => credentials[field] !== undefined);
  const other = Object.keys(credentials).find((key) => !(VERTEX_CREDENTIALS as readonly string[]).includes(key));
  if (other !== undefined) throw fail(`invalid config field "${where}.credentials.${other}": the "vertex" adapter takes service_account_file, service_account, access_token or metadata_server`);
  if (given.length > 1) throw fail(`invalid config field "${where}.credentials.${given[1]}": give one of service_account_file, service_account, access_token or metadata_server`);
  const field = `${where}.credentials`;
  if (given[0] === "metadata_server") {
    options.metadata_server = true;
  } else if (given[0] === "access_token") {
    options.access_token = secret(credentials.access_token as SecretValue, `${field}.access_token`)!;
  } else if (given[0] === "service_account_file") {
    options.service_account = keyFromFile(resolvePath(credentials.service_account_file as string, configDir), `${field}.service_account_file`, fail);
  } else if (given[0] === "service_account") {
    const value = credentials.service_account as Json;
    if (typeof value.env === "string" && Object.keys(value).length === 1) {
      const text = secret(value as { env: string }, `${field}.service_account`)!;
      options.service_account = keyFromJson(text, `${field}.service_account`, fail);
    } else {
      options.service_account = keyFields(value, `${field}.service_account`, fail);
    }
  } else {
    const path = env.GOOGLE_APPLICATION_CREDENTIALS;
    if (path === undefined || path === "") {
      throw fail(`invalid config field "${field}": the "vertex" adapter needs service_account_file, service_account, access_token or metadata_server (or GOOGLE_APPLICATION_CREDENTIALS naming a key file)`);
    }
    options.service_account = keyFromFile(resolvePath(path, configDir), "GOOGLE_APPLICATION_CREDENTIALS", fail, field);
  }
  const project = entry.project ?? options.service_account?.project_id;
  if (project === undefined) throw fail(`invalid config field "${where}.project": required${options.service_account ? " (the key names no project_id)" : ""}`);
  options.project = project;
  if (entry.token_url !== undefined) options.token_url = entry.token_url;
  const publishers: Record<string, "google" | "anthropic"> = {};
  for (const model of entry.models ?? []) if (model.publisher !== undefined) publishers[model.upstream_model ?? model.id] = model.publisher;
  if (Object.keys(publishers).length > 0) options.publishers = publishers;
  return { options, region: location };
}

function resolvePath(path: string, configDir: string): string {
  return isAbsolute(path) ? path : resolve(configDir, path);
}

/** A key file read and checked; `label` names where its path came from, `field` the entry field to fix. */
function keyFromFile(path: string, label: string, fail: (message: string) => Error, field = label): VertexFields["options"]["service_account"] {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (thrown) {
    const code = typeof thrown === "object" && thrown !== null && "code" in thrown ? String((thrown as { code: unknown }).code) : "unreadable";
    throw fail(`invalid config field "${field}": the service-account key file ${path} cannot be read (${code})`);
  }
  return keyFromJson(text, field, fail);
}

function keyFromJson(text: string, field: string, fail: (message: string) => Error): VertexFields["options"]["service_account"] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw fail(`invalid config field "${field}": the service-account key is not JSON`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) throw fail(`invalid config field "${field}": the service-account key is not a JSON object`);
  return keyFields(value as Json, field, fail);
}

/** The fields of a key the gateway uses; a key of another type (a user's ADC file, an external account) is refused. */
function keyFields(key: Json, field: string, fail: (message: string) => Error): NonNullable<VertexFields["options"]["service_account"]> {
  if (key.type !== undefined && key.type !== "service_account") {
    throw fail(`invalid config field "${field}": a key of type "${String(key.type)}" is not a service-account key (use access_token for user credentials)`);
  }
  const text = (name: string): string | undefined => (typeof key[name] === "string" && key[name] !== "" ? (key[name] as string) : undefined);
  const clientEmail = text("client_email");
  const privateKey = text("private_key");
  if (clientEmail === undefined) throw fail(`invalid config field "${field}": the service-account key has no client_email`);
  if (privateKey === undefined || !privateKey.includes("PRIVATE KEY")) throw fail(`invalid config field "${field}": the service-account key has no PEM private_key`);
  const out: NonNullable<VertexFields["options"]["service_account"]> = { client_email: clientEmail, private_key: privateKey };
  const keyId = text("private_key_id");
  const project = text("project_id");
  const tokenUri = text("token_uri");
  if (keyId !== undefined) out.private_key_id = keyId;
  if (project !== undefined) out.project_id = project;
  if (tokenUri !== undefined) {
    if (!/^https?:\/\//.test(tokenUri)) throw fail(`invalid config field "${field}": the key's token_uri is not an http(s) URL`);
    out.token_uri = tokenUri;
  }
  return out;
}
