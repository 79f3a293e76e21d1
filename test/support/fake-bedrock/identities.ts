/**
 * Who the fake Bedrock accepts: access keys with their secrets (and, for temporary credentials, the one session
 * token that goes with them, or a token that has expired), and Bedrock API keys (bearer tokens). The signing region is
 * the fake's own; a signature for another region or service is refused as AWS refuses it.
 */
export interface AccessKey {
  accessKeyId: string;
  secretAccessKey: string;
  /** Temporary credentials: the token that must come with them (`x-amz-security-token`). */
  sessionToken?: string;
  /** The token was valid once and has expired: AWS answers `ExpiredTokenException`. */
  expired?: boolean;
}

export interface Identities {
  region: string;
  keys: AccessKey[];
  apiKeys: string[];
}

/** Long-term keys the test configs use. */
export const STATIC_KEY: AccessKey = { accessKeyId: "AKIAFAKEBEDROCK00001", secretAccessKey: "fakeSecretKey/bedrock+0123456789abcdefghijk" };
/** Temporary (STS) credentials, valid. */
export const SESSION_KEY: AccessKey = {
  accessKeyId: "ASIAFAKEBEDROCK00002",
  secretAccessKey: "fakeSessionSecret/bedrock+9876543210zyxwvu",
  sessionToken: "FwoGZXIvYXdzEFakeSessionTokenForTheBedrockFakeOnly//////////wEaDA==",
};
/** Temporary credentials whose session has expired. */
export const EXPIRED_KEY: AccessKey = {
  accessKeyId: "ASIAFAKEBEDROCK00003",
  secretAccessKey: "fakeExpiredSecret/bedrock+ABCDEFGHIJ0123456",
  sessionToken: "FwoGZXIvYXdzEFakeExpiredSessionTokenBedrock//////////wEaDA==",
  expired: true,
};
/** A Bedrock API key (`AWS_BEARER_TOKEN_BEDROCK`). */
export const API_KEY = "ABSKQmVkcm9ja0FQSUtleS1mYWtlLTAxMjM0NTY3ODk=";

export const REGION = "us-east-1";

export const DEFAULT_IDENTITIES: Identities = { region: REGION, keys: [STATIC_KEY, SESSION_KEY, EXPIRED_KEY], apiKeys: [API_KEY] };
