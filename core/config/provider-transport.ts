/**
 * How the gateway reaches one provider (config file `providers[].tls` and `providers[].timeouts`): the TLS settings
 * of a private or mutually authenticated upstream, and time-outs that differ from the `routing` defaults (a slow
 * self-hosted model, a provider known to hang). PEM files are read once at start-up, relative to the config file.
 */
import { Type, type Static } from "@sinclair/typebox";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";

export const ProviderTlsSchema = Type.Object(
  {
    /** PEM file of extra CA certificates trusted for this provider (beside the system roots). */
    ca_file: Type.Optional(Type.String({ minLength: 1 })),
    /** PEM files of a client certificate and its key (mutual TLS). */
    cert_file: Type.Optional(Type.String({ minLength: 1 })),
    key_file: Type.Optional(Type.String({ minLength: 1 })),
    /** The name sent in SNI and checked against the certificate, when `base_url` names an IP or another host. */
    server_name: Type.Optional(Type.String({ minLength: 1 })),
  },
  { additionalProperties: false },
);

export const ProviderTimeoutsSchema = Type.Object(
  {
    /** Streams: the first output must arrive within this (default `routing.first_byte_timeout_ms`). */
    first_byte_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Non-streamed calls: a fixed bound for the whole answer, instead of the one computed from `max_tokens`. */
    request_ms: Type.Optional(Type.Integer({ minimum: 1 })),
    /** The provider's output speed (tokens per second) the computed bound assumes, instead of the measured one. */
    output_tokens_per_second: Type.Optional(Type.Number({ exclusiveMinimum: 0 })),
    /** The factor the computed bound allows over the expected generation time (default `routing.request_timeout_margin`). */
    margin: Type.Optional(Type.Number({ minimum: 1 })),
  },
  { additionalProperties: false },
);

/** TLS settings of one provider, as the upstream clients take them (PEM text, not paths). */
export interface ProviderTls {
  ca?: string;
  cert?: string;
  key?: string;
  serverName?: string;
}

/** Time-outs of one provider that replace the routing defaults. */
export interface ProviderTimeouts {
  firstByteMs?: number;
  requestMs?: number;
  outputTokensPerSecond?: number;
  margin?: number;
}

/** Reads the PEM files; `fail` names the field of a file that cannot be read or a certificate without its key. */
export function toProviderTls(tls: Static<typeof ProviderTlsSchema> | undefined, where: string, configDir: string, fail: (message: string) => Error): ProviderTls | undefined {
  if (!tls) return undefined;
  if ((tls.cert_file === undefined) !== (tls.key_file === undefined)) throw fail(`invalid config field "${where}.tls": cert_file and key_file go together`);
  const read = (file: string | undefined, field: string): string | undefined => {
    if (file === undefined) return undefined;
    try {
      return readFileSync(resolve(configDir, file), "utf8");
    } catch (error) {
      throw fail(`invalid config field "${where}.tls.${field}": cannot read ${file}: ${(error as Error).message}`);
    }
  };
  const out: ProviderTls = {};
  const ca = read(tls.ca_file, "ca_file");
  const cert = read(tls.cert_file, "cert_file");
  const key = read(tls.key_file, "key_file");
  if (ca !== undefined) out.ca = ca;
  if (cert !== undefined) out.cert = cert;
  if (key !== undefined) out.key = key;
  if (tls.server_name !== undefined) out.serverName = tls.server_name;
  return Object.freeze(out);
}

export function toProviderTimeouts(timeouts: Static<typeof ProviderTimeoutsSchema> | undefined): ProviderTimeouts | undefined {
  if (!timeouts) return undefined;
  const out: ProviderTimeouts = {};
  if (timeouts.first_byte_ms !== undefined) out.firstByteMs = timeouts.first_byte_ms;
  if (timeouts.request_ms !== undefined) out.requestMs = timeouts.request_ms;
  if (timeouts.output_tokens_per_second !== undefined) out.outputTokensPerSecond = timeouts.output_tokens_per_second;
  if (timeouts.margin !== undefined) out.margin = timeouts.margin;
  return out;
}
