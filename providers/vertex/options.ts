/**
 * Options of the `vertex` adapter. The config file writes them beside `base_url` (`project`, `location`,
 * `credentials`, `token_url`, a model's `publisher`: core/config/vertex-provider.ts reads the key file and the
 * environment and hands them here already checked). The Gemini and Anthropic translations' own options (e.g.
 * `thinking_style`, `default_max_tokens`) are accepted beside them and passed on (./index.ts composes the schema).
 */
import { Type } from "@sinclair/typebox";

/** The fields of a service-account key file the gateway uses (Google's JSON has more; they are ignored). */
export const serviceAccountSchema = Type.Object(
  {
    client_email: Type.String({ minLength: 1 }),
    private_key: Type.String({ minLength: 1 }),
    private_key_id: Type.Optional(Type.String()),
    project_id: Type.Optional(Type.String()),
    token_uri: Type.Optional(Type.String({ pattern: "^https?://" })),
  },
  { additionalProperties: true },
);

/** The adapter's own option fields. */
export const VERTEX_OPTION_FIELDS = {
  project: Type.Optional(Type.String({ minLength: 1 })),
  /** A Vertex location (`us-central1`, `europe-west4`, `global`); the catalog's `region` carries it too. */
  location: Type.Optional(Type.String({ minLength: 1, pattern: "^[a-z0-9-]+$" })),
  service_account: Type.Optional(serviceAccountSchema),
  /** A fixed OAuth 2 access token (`gcloud auth print-access-token`, tests): used as it is, never renewed. */
  access_token: Type.Optional(Type.String({ minLength: 1 })),
  /** Tokens of the service account attached to the VM, Cloud Run service or GKE pod, from its metadata server. */
  metadata_server: Type.Optional(Type.Boolean()),
  /** Google's token endpoint for the JWT bearer grant (default: the key's `token_uri`, else Google's), or the metadata server's token URL. */
  token_url: Type.Optional(Type.String({ pattern: "^https?://" })),
  /** `upstream_model` → publisher, for model entries that name theirs (`publisher` in the config). */
  publishers: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Literal("google"), Type.Literal("anthropic")]))),
  /** The `anthropic_version` Claude on Vertex is sent in its body (default `vertex-2023-10-16`). */
  anthropic_version: Type.Optional(Type.String({ minLength: 1 })),
};

export interface ServiceAccount {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  project_id?: string;
  token_uri?: string;
}

export type Publisher = "google" | "anthropic";

/** The options as the adapter reads them (validated against the composed schema at start-up). */
export interface VertexOptions {
  project?: string;
  location?: string;
  service_account?: ServiceAccount;
  access_token?: string;
  metadata_server?: boolean;
  token_url?: string;
  publishers?: Record<string, Publisher>;
  anthropic_version?: string;
}

/** Google's OAuth 2 token endpoint. */
export const GOOGLE_TOKEN_URL = "https://oauth2.googleapis.com/token";
/** The version Claude on Vertex takes in the body in place of the `anthropic-version` header. */
export const VERTEX_ANTHROPIC_VERSION = "vertex-2023-10-16";

/** The publisher of a model: the config's, else `anthropic` for `claude…` models, else `google`. */
export function publisherOf(options: VertexOptions, upstreamModel: string): Publisher {
  return options.publishers?.[upstreamModel] ?? (upstreamModel.startsWith("claude") ? "anthropic" : "google");
}
