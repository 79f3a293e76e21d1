/**
 * Options of the `azure` adapter. The config file writes them beside `base_url` (`api_version`, `api`, `entra`, see
 * core/config/azure-provider.ts, which reads the secret from the environment); they arrive here already checked.
 * `max_tokens_field` is the chat translation's own option, passed on to it.
 */
import { Type } from "@sinclair/typebox";

export const azureOptionsSchema = Type.Object(
  {
    api_version: Type.Optional(Type.String({ minLength: 1 })),
    api: Type.Optional(Type.Union([Type.Literal("chat"), Type.Literal("responses")])),
    entra: Type.Optional(
      Type.Object(
        {
          tenant_id: Type.String({ minLength: 1 }),
          client_id: Type.String({ minLength: 1 }),
          client_secret: Type.String({ minLength: 1 }),
          token_url: Type.Optional(Type.String({ pattern: "^https?://" })),
        },
        { additionalProperties: false },
      ),
    ),
    max_tokens_field: Type.Optional(Type.Union([Type.Literal("max_completion_tokens"), Type.Literal("max_tokens")])),
  },
  { additionalProperties: false },
);

/** The Entra ID app credentials (client-credentials grant). */
export interface EntraCredentials {
  tenant_id: string;
  client_id: string;
  client_secret: string;
  token_url?: string;
}

/** The options as the adapter reads them (validated against `azureOptionsSchema` at start-up). */
export interface AzureOptions {
  api_version?: string;
  api?: "chat" | "responses";
  entra?: EntraCredentials;
}
