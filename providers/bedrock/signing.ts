/**
 * Authenticating one Bedrock call: a Bedrock API key as `Authorization: Bearer`, or AWS Signature Version 4 by
 * `aws4fetch`'s signer (service `bedrock`, the endpoint's region) over the exact body and headers sent. The signer only
 * signs: the call goes through the gateway's own HTTP client, so no library retries anything (the gateway's routing
 * decides about retries and fallbacks).
 *
 * aws4fetch builds the canonical request (path encoding, canonical headers and query, credential scope) and the
 * Authorization header; its hashing primitives run here on Bun's synchronous SHA-256 instead of WebCrypto's, whose
 * asynchronous calls cost about 30 µs of CPU each under Bun — the difference between signing adding a few µs to a
 * call and adding more than the rest of the adapter's work (`bun bench/cloud-adapter-cpu.ts`).
 */
import { AwsV4Signer } from "aws4fetch";
import { createHmac } from "node:crypto";
import type { BedrockAuth } from "./credentials.ts";

/** Bedrock's signing name (the host is `bedrock-runtime…`, the service in the credential scope is `bedrock`). */
const SERVICE = "bedrock";

/**
 * Derived signing keys (one per secret, day, region and service), so a key is derived once a day instead of once a
 * call. Cleared when it grows: rotated session secrets would otherwise pile up.
 */
const signingKeys = new Map<string, Buffer>();
const MAX_SIGNING_KEYS = 64;

function sha256Hex(text: string): string {
  return new Bun.CryptoHasher("sha256").update(text).digest("hex");
}

function hmac(key: string | Buffer, text: string): Buffer {
  return createHmac("sha256", key).update(text).digest();
}

/** aws4fetch's signer with its SHA-256 and HMAC on Bun's synchronous hashing (same algorithm, same results). */
class BedrockSigner extends AwsV4Signer {
  override hexBodyHash(): Promise<string> {
    const declared = this.headers.get("X-Amz-Content-Sha256");
    return Promise.resolve(declared ?? sha256Hex(typeof this.body === "string" ? this.body : ""));
  }

  override async stringToSign(): Promise<string> {
    return ["AWS4-HMAC-SHA256", this.datetime, this.credentialString, sha256Hex(await this.canonicalString())].join("\n");
  }

  override async signature(): Promise<string> {
    const date = this.datetime.slice(0, 8);
    const cacheKey = [this.secretAccessKey, date, this.region, this.service].join();
    let key = signingKeys.get(cacheKey);
    if (key === undefined) {
      if (signingKeys.size >= MAX_SIGNING_KEYS) signingKeys.clear();
      key = hmac(hmac(hmac(hmac(`AWS4${this.secretAccessKey}`, date), this.region), this.service), "aws4_request");
      signingKeys.set(cacheKey, key);
    }
    return hmac(key, await this.stringToSign()).toString("hex");
  }
}

/** `headers` plus what authenticates the call; with SigV4, every header given is signed (content-type aside). */
export async function authorizedHeaders(auth: BedrockAuth, url: string, body: string, headers: Record<string, string>, region: string): Promise<Record<string, string>> {
  if (auth.kind === "bearer") return { ...headers, authorization: `Bearer ${auth.token}` };
  const { credentials } = auth;
  const signer = new BedrockSigner({
    method: "POST",
    url,
    headers,
    body,
    accessKeyId: credentials.accessKeyId,
    secretAccessKey: credentials.secretAccessKey,
    ...(credentials.sessionToken !== undefined ? { sessionToken: credentials.sessionToken } : {}),
    service: SERVICE,
    region,
  });
  const signed = await signer.sign();
  const out: Record<string, string> = {};
  signed.headers.forEach((value, name) => {
    out[name] = value;
  });
  return out;
}
