/**
 * `secrets` (our addition; the peer has a Secrets preset without an API slug): API keys and cloud credentials by
 * their vendors' known formats, plus credentials assigned in text (`api_key = "…"`, connection strings) whose value
 * looks random, and long standalone tokens of high entropy. Each finding is redacted as `[SECRET:<format-id>]`.
 * Every format has literal hints tested first (`String.includes`, cheap), so most texts run none of the regexes.
 */
import { lastTokensStart } from "./hold.ts";
import { alphabetRuns } from "./runs.ts";
import { codesOf } from "./codes.ts";
import type { Detector, Finding } from "./types.ts";

interface SecretFormat {
  id: string;
  /** Literals one of which the text must contain for the format to be looked for. */
  hints: readonly string[];
  /** Or a shape to test (a regex without look-around) when no literal tells. */
  hint?: RegExp;
  re: RegExp;
  accept?: (m: RegExpExecArray) => boolean;
}

/** Shannon entropy of a string, in bits per character. */
export function entropy(s: string): number {
  const counts = new Map<number, number>();
  for (let i = 0; i < s.length; i++) counts.set(s.charCodeAt(i), (counts.get(s.charCodeAt(i)) ?? 0) + 1);
  let bits = 0;
  for (const n of counts.values()) {
    const p = n / s.length;
    bits -= p * Math.log2(p);
  }
  return bits;
}

/** A value that looks generated rather than written: long enough, mixed, and of high entropy. */
function random(value: string, minBits = 3.5): boolean {
  if (value.length < 16) return false;
  if (/^[a-z]+$|^[A-Z]+$|^\d+$/.test(value)) return false;
  if (/^(?:x+|\*+|\.+|<[^>]*>|\$\{[^}]*\})$|^(?:your[_-]|example|placeholder|changeme|redacted)/i.test(value)) return false;
  return entropy(value) >= minBits;
}

const END = "(?![A-Za-z0-9_-])";
const START = "(?<![A-Za-z0-9_-])";

const FORMATS: readonly SecretFormat[] = [
  { id: "aws_access_key_id", hints: ["AKIA", "ASIA", "ABIA", "ACCA"], re: new RegExp(`${START}(?:AKIA|ASIA|ABIA|ACCA)[0-9A-Z]{16}${END}`, "g") },
  {
    id: "aws_secret_access_key",
    hints: ["aws", "AWS"],
    re: /aws.{0,20}?(?:secret|private).{0,20}?[=:]\s*["']?([A-Za-z0-9/+=]{40})(?![A-Za-z0-9/+=])/gi,
    accept: (m) => random(m[1]!),
  },
  { id: "github_token", hints: ["ghp_", "gho_", "ghu_", "ghs_", "ghr_"], re: new RegExp(`${START}gh[pousr]_[A-Za-z0-9]{36,255}${END}`, "g") },
  { id: "github_fine_grained_pat", hints: ["github_pat_"], re: new RegExp(`${START}github_pat_[A-Za-z0-9_]{22,255}${END}`, "g") },
  { id: "gitlab_token", hints: ["glpat-", "gldt-", "glrt-"], re: new RegExp(`${START}gl(?:pat|dt|rt)-[A-Za-z0-9_-]{20,50}${END}`, "g") },
  { id: "openai_api_key", hints: ["sk-"], re: new RegExp(`${START}sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{16,200}T3BlbkFJ[A-Za-z0-9_-]{16,200}${END}|${START}sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,300}${END}`, "g") },
  { id: "anthropic_api_key", hints: ["sk-ant-"], re: new RegExp(`${START}sk-ant-(?:api|admin|oat)\\d{2}-[A-Za-z0-9_-]{80,120}${END}`, "g") },
  { id: "openrouter_api_key", hints: ["sk-or-"], re: new RegExp(`${START}sk-or-v1-[0-9a-f]{64}${END}`, "g") },
  { id: "gateway_api_key", hints: ["sk-gw-v1-"], re: new RegExp(`${START}sk-gw-v1-[A-Za-z0-9_-]{43}${END}`, "g") },
  { id: "stripe_key", hints: ["_live_", "_test_", "whsec_"], re: new RegExp(`${START}(?:(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{20,250}|whsec_[A-Za-z0-9]{24,64})${END}`, "g") },
  { id: "slack_token", hints: ["xox"], re: new RegExp(`${START}xox[abposre]-(?:\\d+-)*[A-Za-z0-9-]{10,250}${END}`, "g") },
  { id: "slack_webhook", hints: ["hooks.slack.com"], re: /https:\/\/hooks\.slack\.com\/(?:services|workflows)\/[A-Za-z0-9_/-]{20,200}/g },
  { id: "google_api_key", hints: ["AIza"], re: new RegExp(`${START}AIza[0-9A-Za-z_-]{35}${END}`, "g") },
  { id: "google_oauth_token", hints: ["ya29."], re: new RegExp(`${START}ya29\\.[0-9A-Za-z_-]{20,500}${END}`, "g") },
  { id: "gcp_service_account_key", hints: ["private_key_id"], re: /"private_key_id"\s*:\s*"[0-9a-f]{40}"/g },
  { id: "azure_storage_key", hints: ["AccountKey="], re: /AccountKey=[A-Za-z0-9+/]{86}==/g },
  { id: "azure_connection_string", hints: ["SharedAccessKey="], re: /SharedAccessKey=[A-Za-z0-9+/]{43}=/g },
  { id: "twilio_key", hints: ["SK", "AC"], re: new RegExp(`${START}(?:SK|AC)[0-9a-f]{32}${END}`, "g") },
  { id: "sendgrid_api_key", hints: ["SG."], re: new RegExp(`${START}SG\\.[A-Za-z0-9_-]{22}\\.[A-Za-z0-9_-]{43}${END}`, "g") },
  { id: "mailgun_api_key", hints: ["key-"], re: new RegExp(`${START}key-[0-9a-f]{32}${END}`, "g") },
  { id: "npm_token", hints: ["npm_"], re: new RegExp(`${START}npm_[A-Za-z0-9]{36}${END}`, "g") },
  { id: "pypi_token", hints: ["pypi-"], re: new RegExp(`${START}pypi-AgEIcHlwaS5vcmc[A-Za-z0-9_-]{50,300}${END}`, "g") },
  { id: "huggingface_token", hints: ["hf_"], re: new RegExp(`${START}hf_[A-Za-z0-9]{34,40}${END}`, "g") },
  { id: "shopify_token", hints: ["shpat_", "shpca_", "shppa_", "shpss_"], re: new RegExp(`${START}shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}${END}`, "g") },
  { id: "digitalocean_token", hints: ["dop_v1_", "doo_v1_", "dor_v1_"], re: new RegExp(`${START}do[por]_v1_[a-f0-9]{64}${END}`, "g") },
  { id: "telegram_bot_token", hints: [":AA"], re: /(?<!\d)\d{8,10}:AA[0-9A-Za-z_-]{33}(?![A-Za-z0-9_-])/g },
  // No literal to look for: the token's shape (two dots at fixed places) is the hint, tested without look-around.
  { id: "discord_bot_token", hints: [], hint: /[MNO][A-Za-z\d_-]{23,25}\.[A-Za-z\d_-]{6}\./, re: new RegExp(`${START}[MNO][A-Za-z\\d_-]{23,25}\\.[A-Za-z\\d_-]{6}\\.[A-Za-z\\d_-]{27,38}${END}`, "g") },
  { id: "jwt", hints: ["eyJ"], re: new RegExp(`${START}eyJ[A-Za-z0-9_-]{10,2000}\\.eyJ[A-Za-z0-9_-]{10,4000}\\.[A-Za-z0-9_-]{10,2000}${END}`, "g") },
  {
    id: "connection_string_password",
    hints: ["://"],
    re: /\b(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|redis|rediss|amqps?|mssql|sqlserver|ftp|smtps?):\/\/[^\s:/@'"]{1,128}:[^\s@/'"]{3,256}@[^\s/'"]{1,256}/gi,
    accept: (m) => !/:(?:\*+|password|pass|pwd|x+|<[^>]*>|\$\{[^}]*\})@/i.test(m[0]),
  },
  {
    id: "assigned_credential",
    hints: ["key", "KEY", "Key", "secret", "SECRET", "Secret", "token", "TOKEN", "Token", "password", "PASSWORD", "Password", "passwd", "pwd"],
    // The keyword first (no optional prefix before it): every position that is not one costs one character test.
    re: /(?:api[_-]?key|apikey|secret(?:[_-]?key)?|access[_-]?key|auth[_-]?token|access[_-]?token|token|client[_-]?secret|password|passwd|pwd)\b["']?\s*(?:[:=]|=>)\s*["']?([^\s"',;]{16,256})/gi,
    accept: (m) => random(m[1]!),
  },
];

/** A long token of high entropy with letters of both cases and digits (a credential of an unknown format). */
function entropyFindings(text: string, taken: readonly Finding[]): Finding[] {
  const found: Finding[] = [];
  for (const run of alphabetRuns(text)) {
    const length = run.end - run.start;
    // Over 128 characters it is data (an image, a blob), not a key; under 32, too short to tell.
    if (length < 32 || length > 128) continue;
    const token = text.slice(run.start, run.end);
    if (!/[a-z]/.test(token) || !/[A-Z]/.test(token) || !/\d/.test(token)) continue;
    // Paths and file names are not credentials.
    if (/\/[a-z]+\/|\.[a-z]{2,4}$/.test(token)) continue;
    if (entropy(token) < 4.3) continue;
    if (taken.some((f) => f.start < run.end && run.start < f.end)) continue;
    found.push({ start: run.start, end: run.end, pattern: "high_entropy_token" });
  }
  return found;
}

/** Characters of a candidate token: printable ASCII but spaces, quotes, brackets, commas and semicolons. */
const isTokenChar = (c: number) => c > 32 && c < 127 && c !== 34 && c !== 39 && c !== 96 && c !== 40 && c !== 41 && c !== 60 && c !== 62 && c !== 91 && c !== 93 && c !== 123 && c !== 125 && c !== 44 && c !== 59;
/** The shortest credential of any format (after a cue) is 16 characters. */
const MIN_TOKEN = 16;
/** Text before a token that a format may need as its cue (`aws_secret_access_key = `, `"private_key_id": `). */
const CUE = 64;

/**
 * Windows of `text` around its long tokens (every format but a private-key block is, or ends in, one token of 16
 * characters or more): prose has few, so the formats run on little text. Merged, in order.
 */
function tokenWindows(text: string): Array<[number, number]> {
  const codes = codesOf(text);
  const windows: Array<[number, number]> = [];
  let start = -1;
  for (let i = 0; i <= codes.length; i++) {
    if (i < codes.length && isTokenChar(codes[i]!)) {
      if (start < 0) start = i;
      continue;
    }
    if (start >= 0 && i - start >= MIN_TOKEN) {
      const from = Math.max(0, start - CUE);
      const last = windows[windows.length - 1];
      if (last && from <= last[1]) last[1] = i + 1;
      else windows.push([from, Math.min(text.length, i + 1)]);
    }
    start = -1;
  }
  return windows;
}

function formatFindings(text: string, offset: number, found: Finding[]): void {
  for (const format of FORMATS) {
    if (format.hint ? !format.hint.test(text) : !format.hints.some((h) => text.includes(h))) continue;
    format.re.lastIndex = 0;
    for (let m = format.re.exec(text); m !== null; m = format.re.exec(text)) {
      if (format.accept && !format.accept(m)) {
        format.re.lastIndex = m.index + 1;
        continue;
      }
      // A credential after a cue (`password=…`): only the value is the secret.
      const value = m[1];
      const start = value !== undefined ? m.index + m[0].lastIndexOf(value) : m.index;
      found.push({ start: offset + start, end: offset + start + (value ?? m[0]).length, pattern: format.id });
    }
  }
}

const KEY_TYPES = "(?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?";
const KEY_BEGIN_LINE = new RegExp(`-----BEGIN ${KEY_TYPES}PRIVATE KEY(?: BLOCK)?-----`, "g");
const KEY_END_LINE = new RegExp(`-----END ${KEY_TYPES}PRIVATE KEY(?: BLOCK)?-----`, "g");
/** How far after its BEGIN line a key block's END line may start. */
const KEY_REACH = 12_000;

/**
 * Private key blocks: a BEGIN line and the first END line at most KEY_REACH characters after it, as the regex
 * `BEGIN[\s\S]{0,12000}?END` finds them, without its cost: from every BEGIN line it would read up to 12,000
 * characters looking for an END, so a text of BEGIN lines alone took 12,000 steps per line. Here the first END line
 * after a point is looked for once and kept while later BEGIN lines come before it.
 */
function privateKeyFindings(text: string, found: Finding[]): void {
  let end: RegExpExecArray | null | undefined;
  KEY_BEGIN_LINE.lastIndex = 0;
  for (let begin = KEY_BEGIN_LINE.exec(text); begin !== null; begin = KEY_BEGIN_LINE.exec(text)) {
    const body = begin.index + begin[0].length;
    if (end === undefined || (end !== null && end.index < body)) {
      KEY_END_LINE.lastIndex = body;
      end = KEY_END_LINE.exec(text);
    }
    if (end === null) return; // no END line after this one: none after a later BEGIN either
    if (end.index - body > KEY_REACH) {
      // Out of reach; a BEGIN line may start inside this one (`-----BEGIN …-----BEGIN …-----`).
      KEY_BEGIN_LINE.lastIndex = begin.index + 1;
      continue;
    }
    const close = end.index + end[0].length;
    found.push({ start: begin.index, end: close, pattern: "private_key" });
    KEY_BEGIN_LINE.lastIndex = close;
  }
}

export const secrets: Detector = {
  slug: "secrets",
  label: "SECRET",
  engine: "secrets",
  maxSpan: 12_200,
  placeholder: (finding) => `[SECRET:${finding.pattern}]`,
  holdFrom: holdSecrets,
  find(text: string): Finding[] {
    const found: Finding[] = [];
    for (const [start, end] of tokenWindows(text)) formatFindings(text.slice(start, end), start, found);
    if (text.includes("PRIVATE KEY")) privateKeyFindings(text, found);
    if (text.length >= 32) found.push(...entropyFindings(text, found));
    return dedupe(found);
  },
};

const KEY_BEGIN = /^-----BEGIN (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/;
const KEY_END = /-----END (?:RSA |EC |DSA |OPENSSH |ENCRYPTED |PGP )?PRIVATE KEY(?: BLOCK)?-----/;

/**
 * Where a finding may still begin in a growing text. A private key block spans lines: held from its BEGIN line
 * until its whole END line arrives (unless the BEGIN line names something else, a certificate). Anything else fits
 * in the last three tokens (`password = value`), but for an AWS secret, whose cue (`aws … secret … =`) may come up
 * to 64 characters before the value.
 */
function holdSecrets(text: string): number {
  // The last BEGIN line within a block's reach (not a search of the whole answer on every delta).
  let begin = text.indexOf("-----BEGIN ", Math.max(0, text.length - 12_200));
  for (let next = begin; next >= 0; next = text.indexOf("-----BEGIN ", begin + 1)) begin = next;
  if (begin >= 0) {
    const header = text.slice(begin, begin + 64);
    const closed = header.indexOf("-----", 11);
    const key = closed < 0 || KEY_BEGIN.test(header);
    if (key && !KEY_END.test(text.slice(begin))) return begin;
  }
  const last = lastTokensStart(text, 3, 600);
  const before = Math.max(0, last - 64);
  const cue = text.slice(before, last).search(/aws/i);
  return cue < 0 ? last : before + cue;
}

/** Windows may overlap a format's match twice: one finding per format and start. */
function dedupe(found: Finding[]): Finding[] {
  const seen = new Set<string>();
  return found.filter((f) => {
    const key = `${f.pattern}:${f.start}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
