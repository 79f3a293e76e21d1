/**
 * Authenticating one Bedrock call: a Bedrock API key as `Authorization: Bearer`, or AWS Signature Version 4 by
 * `aws4fetch`'s signer (WebCrypto; service `bedrock`, the endpoint's region) over the exact body and headers sent. The
 * signer only signs: the call goes through the gateway's own HTTP client, so no library retries anything (the
 * gateway's routing decides about retries and fallbacks).
 */
import { AwsV4Signer } from "aws4fetch";
import type { BedrockAuth } from "./credentials.ts";

/** Bedrock's signing name (the host is `bedrock-runtime…`, the service in the credential scope is `bedrock`). */
const SERVICE = "bedrock";

/**
 * aws4fetch's cache of derived signing keys (one per secret, day, region and service), shared so a key is derived
 * once a day instead of once a call. Cleared when it grows: rotated session secrets would otherwise pile up.
 */
const signingKeys = new Map<string, ArrayBuffer>();
const MAX_SIGNING_KEYS = 64;

/** `headers` plus what authenticates the call; with SigV4, every header given is signed (content-type aside). */
export async function authorizedHeaders(auth: BedrockAuth, url: string, body: string, headers: Record<string, string>, region: string): Promise<Record<string, string>> {
  if (auth.kind === "bearer") return { ...headers, authorization: `Bearer ${auth.token}` };
  if (signingKeys.size > MAX_SIGNING_KEYS) signingKeys.clear();
  const { credentials } = auth;
  const signer = new AwsV4Signer({
    method: "POST",
    url,
    headers,
    body,
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    ...(credentials.sessionToken !== undefined ? { sessionToken: credentials.sessionToken } : {}),
    service: SERVICE,
    region,
    cache: signingKeys,
  });
  const signed = await signer.sign();
  const out: Record<string, string> = {};
  signed.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}
