/**
 * Provider keys at rest (README "Bring your own keys"): AES-256-GCM under GATEWAY_SECRET_KEY, a fresh 96-bit nonce per
 * encryption, the credential's id as associated data (a ciphertext copied onto another row does not decrypt).
 * Stored as `v1.<base64url nonce|tag|ciphertext>`. Nothing here logs, and no error carries the plaintext.
 */
import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

export class ByokCipher {
  private readonly key: Buffer;

  /** `hexKey`: 64 hexadecimal characters (checked when the config is read). */
  constructor(hexKey: string) {
    this.key = Buffer.from(hexKey, "hex");
    if (this.key.length !== 32) throw new Error("GATEWAY_SECRET_KEY: must be 32 bytes as 64 hexadecimal characters");
  }

  encrypt(plaintext: string, id: string): string {
    const nonce = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", this.key, nonce);
    cipher.setAAD(Buffer.from(id));
    const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
    return `v1.${Buffer.concat([nonce, cipher.getAuthTag(), body]).toString("base64url")}`;
  }

  /** The plaintext, or undefined when the ciphertext is not this key's (another GATEWAY_SECRET_KEY, or tampered). */
  decrypt(stored: string, id: string): string | undefined {
    if (!stored.startsWith("v1.")) return undefined;
    const raw = Buffer.from(stored.slice(3), "base64url");
    if (raw.length < 28) return undefined;
    try {
      const decipher = createDecipheriv("aes-256-gcm", this.key, raw.subarray(0, 12));
      decipher.setAAD(Buffer.from(id));
      decipher.setAuthTag(raw.subarray(12, 28));
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
    } catch {
      return undefined;
    }
  }
}
