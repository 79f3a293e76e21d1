/**
 * The fake's check of a request's credentials, as Bedrock makes it: a Bedrock API key as `Authorization: Bearer`, or
 * an AWS Signature Version 4 recomputed with an implementation of its own (`@smithy/signature-v4`, the AWS SDK's
 * signer, with `@aws-crypto/sha256-js`), never with the signer the gateway uses. A failure is AWS's 403 with its error
 * type (`InvalidSignatureException`, `UnrecognizedClientException`, `ExpiredTokenException`,
 * `MissingAuthenticationTokenException`), the exact messages AWS answers with.
 */
import { Sha256 } from "@aws-crypto/sha256-js";
import { SignatureV4 } from "@smithy/signature-v4";
import type { Identities } from "./identities.ts";

/** A request as the fake received it (lower-case header names; `path` as sent, still percent-encoded). */
export interface SignedRequest {
  method: string;
  path: string;
  /** Query string without `?`. */
  query: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Why a request was refused: AWS's status, error type and message. */
export interface AuthFailure {
  status: number;
  type: string;
  message: string;
}

/** What an accepted request authenticated with. */
export type Authenticated = { kind: "sigv4"; accessKeyId: string } | { kind: "api-key" };

const SERVICE = "bedrock";
/** AWS refuses a signature more than 15 minutes away from its clock. */
const SKEW_MS = 15 * 60 * 1000;

const SIGNATURE_MISMATCH =
  "The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.";

const fail = (status: number, type: string, message: string): AuthFailure => ({ status, type, message });

/** Checks one request; the failure AWS would answer, or what it authenticated with. */
export async function checkAuth(request: SignedRequest, identities: Identities, now = Date.now()): Promise<AuthFailure | Authenticated> {
  const authorization = request.headers.authorization ?? "";
  if (authorization.startsWith("Bearer ")) {
    return identities.apiKeys.includes(authorization.slice(7)) ? { kind: "api-key" } : fail(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  }
  if (authorization === "") return fail(403, "MissingAuthenticationTokenException", "Missing Authentication Token");
  const parsed = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/.exec(authorization);
  if (!parsed) return fail(400, "IncompleteSignatureException", `Authorization header requires 'Credential', 'Signature' and 'SignedHeaders' parameters. Authorization=${authorization.slice(0, 20)}`);
  const [, accessKeyId, date, region, service, signedHeaderList, signature] = parsed as unknown as string[];
  const key = identities.keys.find((k) => k.accessKeyId === accessKeyId);
  if (!key) return fail(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
  if (key.sessionToken !== undefined) {
    const token = request.headers["x-amz-security-token"];
    if (token !== key.sessionToken) return fail(403, "UnrecognizedClientException", "The security token included in the request is invalid.");
    if (key.expired) return fail(403, "ExpiredTokenException", "The security token included in the request is expired");
  }
  const amzDate = request.headers["x-amz-date"] ?? "";
  const signingDate = parseAmzDate(amzDate);
  if (!signingDate || !amzDate.startsWith(date!)) return fail(403, "InvalidSignatureException", SIGNATURE_MISMATCH);
  if (Math.abs(now - signingDate.getTime()) > SKEW_MS) {
    return fail(403, "InvalidSignatureException", `Signature expired: ${amzDate} is now earlier than ${formatAmzDate(new Date(now - SKEW_MS))} (${formatAmzDate(new Date(now))} - 15 min.)`);
  }
  if (region !== identities.region || service !== SERVICE) {
    return fail(403, "InvalidSignatureException", `Credential should be scoped to a valid region or service. Expected '${identities.region}/${SERVICE}'.`);
  }
  const signed = signedHeaderList!.split(";");
  if (!signed.includes("host") || !signed.includes("x-amz-date")) return fail(403, "InvalidSignatureException", SIGNATURE_MISMATCH);
  const bodyHash = await sha256Hex(request.body);
  const claimed = request.headers["x-amz-content-sha256"];
  if (claimed !== undefined && claimed !== bodyHash) return fail(400, "XAmzContentSHA256Mismatch", "The provided 'x-amz-content-sha256' header does not match what was computed.");
  const expected = await signatureOf(request, signed, key, region!, signingDate);
  return expected === signature ? { kind: "sigv4", accessKeyId: accessKeyId! } : fail(403, "InvalidSignatureException", SIGNATURE_MISMATCH);
}

/** The signature of the request over exactly the headers its client signed, by the AWS SDK's own signer. */
async function signatureOf(request: SignedRequest, signed: string[], key: Identities["keys"][number], region: string, signingDate: Date): Promise<string> {
  const headers: Record<string, string> = {};
  for (const name of signed) headers[name] = request.headers[name] ?? "";
  const signer = new SignatureV4({
    service: SERVICE,
    region,
    sha256: Sha256,
    applyChecksum: false,
    credentials: { accessKeyId: key.accessKeyId, secretAccessKey: key.secretAccessKey, ...(key.sessionToken ? { sessionToken: key.sessionToken } : {}) },
  });
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of new URLSearchParams(request.query)) {
    const seen = query[name];
    query[name] = seen === undefined ? value : Array.isArray(seen) ? [...seen, value] : [seen, value];
  }
  const result = await signer.sign(
    { method: request.method, protocol: "http:", hostname: (request.headers.host ?? "").replace(/:\d+$/, ""), path: request.path, query, headers, body: request.body },
    { signingDate, signableHeaders: new Set(signed) },
  );
  const header = (result.headers.authorization ?? result.headers.Authorization ?? "") as string;
  return /Signature=([0-9a-f]{64})$/.exec(header)?.[1] ?? "";
}

function parseAmzDate(value: string): Date | undefined {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value);
  if (!m) return undefined;
  const [, y, mo, d, h, mi, s] = m.map(Number) as number[];
  return new Date(Date.UTC(y!, mo! - 1, d!, h!, mi!, s!));
}

function formatAmzDate(date: Date): string {
  return date.toISOString().replace(/[-:]|\.\d{3}/g, "");
}

async function sha256Hex(bytes: Uint8Array): Promise<string> {
  const hash = new Sha256();
  hash.update(bytes);
  return Buffer.from(await hash.digest()).toString("hex");
}

/** True when `checkAuth` refused the request. */
export function isFailure(value: AuthFailure | Authenticated): value is AuthFailure {
  return "status" in value;
}
