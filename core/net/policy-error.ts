/** The refusal of a server-side fetch by the network policy (safe-fetch.ts). */
export class NetworkPolicyError extends Error {
  override readonly name = "NetworkPolicyError";
  /** Why, e.g. `private address 127.0.0.2 (loopback)` or `scheme "file:" is not allowed`. */
  readonly reason: string;
  /** The URL refused (a redirect's target when that is what was refused). */
  readonly url: string;

  constructor(reason: string, url: string) {
    super(`network policy refused ${url.length > 200 ? `${url.slice(0, 200)}…` : url}: ${reason}`);
    this.reason = reason;
    this.url = url;
  }
}
