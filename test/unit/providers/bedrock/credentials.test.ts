/**
 * providers/bedrock/credentials.ts and endpoint.ts: where a Bedrock endpoint's credentials come from, in the AWS
 * SDKs' order, read again when they may have changed; and the start-up checks of an entry, naming the field.
 */
import { describe, expect, test } from "bun:test";
import { AmbientCredentials, type CredentialEnvironment, CredentialError, profileOf } from "../../../../providers/bedrock/credentials.ts";
import { defaultBaseUrl, prepareBedrockTarget } from "../../../../providers/bedrock/endpoint.ts";
import { bedrockTarget, CLAUDE } from "./support.ts";

/** An environment with files in memory, whose modification times a test moves. */
function environment(env: Record<string, string | undefined>, files: Record<string, string> = {}): CredentialEnvironment & { files: Record<string, string>; mtimes: Record<string, number>; reads: number } {
  const self = {
    env,
    files,
    mtimes: Object.fromEntries(Object.keys(files).map((path) => [path, 1])) as Record<string, number>,
    reads: 0,
    home: () => "/home/op",
    readFile(path: string) {
      self.reads++;
      return self.files[path];
    },
    mtime: (path: string) => (path in self.files ? self.mtimes[path] : undefined),
  };
  return self;
}

const FILE = "/home/op/.aws/credentials";
const ini = (profile: string, id: string, secret: string, token?: string) =>
  `# written by a tool\n[${profile}]\naws_access_key_id = ${id}\naws_secret_access_key=${secret}\n${token ? `aws_session_token = ${token}\n` : ""}`;

describe("the ambient chain", () => {
  test("AWS_BEARER_TOKEN_BEDROCK first, then the access keys of the environment, then the profile", () => {
    const files = { [FILE]: ini("default", "AKIAFILE", "file-secret") };
    expect(new AmbientCredentials(environment({ AWS_BEARER_TOKEN_BEDROCK: "ABSK-1", AWS_ACCESS_KEY_ID: "AKIAENV", AWS_SECRET_ACCESS_KEY: "s" }, files)).auth(0)).toEqual({ kind: "bearer", token: "ABSK-1" });
    expect(new AmbientCredentials(environment({ AWS_ACCESS_KEY_ID: "AKIAENV", AWS_SECRET_ACCESS_KEY: "env-secret", AWS_SESSION_TOKEN: "tok" }, files)).auth(0)).toEqual({
      kind: "sigv4",
      credentials: { accessKeyId: "AKIAENV", secretAccessKey: "env-secret", sessionToken: "tok" },
    });
    // An access key without its secret is not a credential: the file is next.
    expect(new AmbientCredentials(environment({ AWS_ACCESS_KEY_ID: "AKIAENV", AWS_SECRET_ACCESS_KEY: "" }, files)).auth(0)).toEqual({
      kind: "sigv4",
      credentials: { accessKeyId: "AKIAFILE", secretAccessKey: "file-secret" },
    });
  });

  test("AWS_PROFILE and AWS_SHARED_CREDENTIALS_FILE choose the profile and the file", () => {
    const files = { "/etc/aws/creds": `${ini("default", "AKIADEF", "d")}\n${ini("prod", "AKIAPROD", "p", "prod-token")}` };
    const auth = new AmbientCredentials(environment({ AWS_PROFILE: "prod", AWS_SHARED_CREDENTIALS_FILE: "/etc/aws/creds" }, files)).auth(0);
    expect(auth).toEqual({ kind: "sigv4", credentials: { accessKeyId: "AKIAPROD", secretAccessKey: "p", sessionToken: "prod-token" } });
  });

  test("the file is read again when its modification time moves (looked at every few seconds), and after invalidate()", () => {
    const env = environment({}, { [FILE]: ini("default", "ASIAOLD", "old", "old-token") });
    const chain = new AmbientCredentials(env);
    expect(chain.auth(0)).toMatchObject({ credentials: { accessKeyId: "ASIAOLD" } });
    env.files[FILE] = ini("default", "ASIANEW", "new", "new-token");
    env.mtimes[FILE] = 2;
    // Within the re-check interval the kept credentials are used, without touching the disk.
    expect(chain.auth(1_000)).toMatchObject({ credentials: { accessKeyId: "ASIAOLD" } });
    expect(env.reads).toBe(1);
    expect(chain.auth(6_000)).toMatchObject({ credentials: { accessKeyId: "ASIANEW", sessionToken: "new-token" } });
    env.files[FILE] = ini("default", "ASIANEWER", "newer", "t3");
    chain.invalidate();
    expect(chain.auth(6_001)).toMatchObject({ credentials: { accessKeyId: "ASIANEWER" } });
  });

  test("environment credentials past AWS_CREDENTIAL_EXPIRATION are read again", () => {
    const env = environment({ AWS_ACCESS_KEY_ID: "ASIA1", AWS_SECRET_ACCESS_KEY: "s1", AWS_SESSION_TOKEN: "t1", AWS_CREDENTIAL_EXPIRATION: "2023-11-14T22:13:30Z" });
    const chain = new AmbientCredentials(env);
    const expiry = Date.parse("2023-11-14T22:13:30Z");
    expect(chain.auth(expiry - 1)).toMatchObject({ credentials: { accessKeyId: "ASIA1" } });
    env.env.AWS_ACCESS_KEY_ID = "ASIA2";
    expect(chain.auth(expiry - 1)).toMatchObject({ credentials: { accessKeyId: "ASIA1" } });
    expect(chain.auth(expiry)).toMatchObject({ credentials: { accessKeyId: "ASIA2" } });
  });

  test("nothing found: a CredentialError saying where it looked, without any secret", () => {
    const files = { [FILE]: "[other]\naws_access_key_id = AKIAOTHER\naws_secret_access_key = very-secret\n" };
    const thrown = (() => {
      try {
        new AmbientCredentials(environment({}, files)).auth(0);
      } catch (error) {
        return error as Error;
      }
      return undefined;
    })();
    expect(thrown).toBeInstanceOf(CredentialError);
    expect(thrown?.message).toContain(`profile "default" of ${FILE} (no such profile)`);
    expect(thrown?.message).toContain("AWS_ACCESS_KEY_ID");
    expect(thrown?.message).not.toContain("very-secret");
  });

  test("profileOf reads INI sections, comments and spacing as the AWS CLI writes them", () => {
    expect(profileOf("; c\n[ default ]\n  aws_access_key_id=A  \n# x\nAWS_SECRET_ACCESS_KEY = B\n[next]\naws_access_key_id = C\n", "default")).toEqual({ aws_access_key_id: "A", aws_secret_access_key: "B" });
    expect(profileOf("[a]\nk = v\n", "b")).toBeUndefined();
  });
});

describe("prepareBedrockTarget", () => {
  const none = environment({});

  test("without base_url, the AWS endpoint of the region", () => {
    const prepared = prepareBedrockTarget(bedrockTarget(CLAUDE), none);
    expect(prepared.baseUrl).toBe(defaultBaseUrl("us-east-1"));
    expect(prepared.baseUrl).toBe("https://bedrock-runtime.us-east-1.amazonaws.com");
  });

  test("a missing region, both kinds of credentials, or none anywhere stop start-up naming the field", () => {
    expect(() => prepareBedrockTarget(bedrockTarget(CLAUDE, { region: undefined }), none)).toThrow(/^region: required/);
    expect(() => prepareBedrockTarget(bedrockTarget(CLAUDE, { apiKey: "ABSK" }), none)).toThrow(/^api_key: .*not both/);
    expect(() => prepareBedrockTarget(bedrockTarget(CLAUDE, { credentials: undefined }), none)).toThrow(/^credentials: none given/);
    expect(() => prepareBedrockTarget(bedrockTarget(CLAUDE, { credentials: { access_key_id: "AKIA" } }), none)).toThrow(/^credentials\.secret_access_key: required/);
  });

  test("no credentials in the config: the ambient chain is used", () => {
    const prepared = prepareBedrockTarget(bedrockTarget(CLAUDE, { credentials: undefined, baseUrl: "https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com/" }), environment({ AWS_BEARER_TOKEN_BEDROCK: "ABSK-2" }));
    expect(prepared.baseUrl).toBe("https://vpce-1.bedrock-runtime.us-east-1.vpce.amazonaws.com");
  });
});
