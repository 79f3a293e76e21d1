/**
 * Regex presets for personal data (phone, ssn, credit-card, ip-address), each written so a
 * backtracking engine stays linear on it (no nested unbounded quantifiers; every repetition bounded or followed by
 * a required delimiter), with a cheap pre-test so most texts never run the regex at all.
 */
import { lastTokensStart, trailingRunStart } from "./hold.ts";
import { regexFindings, type Detector, type Finding } from "./types.ts";

/** A detector over one native RegExp (the g flag is added), with a pre-test and an acceptance check. */
function regexDetector(spec: {
  slug: string;
  label: string;
  maxSpan: number;
  re: RegExp;
  pattern?: string;
  pretest?: (text: string) => boolean;
  accept?: (m: RegExpExecArray) => boolean;
  holdFrom: (text: string) => number;
}): Detector {
  const re = new RegExp(spec.re.source, spec.re.flags.includes("g") ? spec.re.flags : spec.re.flags + "g");
  const pattern = spec.pattern ?? spec.slug;
  return {
    slug: spec.slug,
    label: spec.label,
    engine: "regex",
    maxSpan: spec.maxSpan,
    holdFrom: spec.holdFrom,
    find: (text: string): Finding[] => (spec.pretest && !spec.pretest(text) ? [] : regexFindings(re, text, pattern, spec.accept)),
  };
}

const isDigitCode = (c: number) => c >= 48 && c <= 57;
/** Characters a phone number or card number is written with (digits and their separators). */
const phoneChar = (c: number) => isDigitCode(c) || c === 32 || c === 46 || c === 45 || c === 40 || c === 41 || c === 43;
const cardChar = (c: number) => isDigitCode(c) || c === 32 || c === 45 || c === 46;

const hasDigitRun = (n: number) => {
  const re = new RegExp(`\\d{${n}}`);
  return (text: string) => re.test(text);
};

export const email = regexDetector({
  slug: "email",
  label: "EMAIL",
  maxSpan: 254,
  re: /(?<![\w.%+-])[A-Za-z0-9](?:[A-Za-z0-9._%+-]{0,62}[A-Za-z0-9_%+-])?@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}(?![\w-])/,
  pretest: (text) => text.includes("@"),
  holdFrom: (text) => lastTokensStart(text, 1, 254),
});

/** Separators inside a phone number: one space, dot or dash. */
const SEP = "[ .\\-]";
export const phone = regexDetector({
  slug: "phone",
  label: "PHONE",
  maxSpan: 40,
  // +CC optional; an area code (in parentheses or not); then 2–3 groups. Not inside a longer run of digit groups
  // (a card number, a date, an id), and never a bare digit string (too many order numbers look like one).
  re: new RegExp(
    `(?<![\\w+]|\\d${SEP})` +
      `(?:\\+\\d{1,3}${SEP}?(?:\\(\\d{1,4}\\)${SEP}?|\\d{1,4}${SEP})\\d{2,4}(?:${SEP}?\\d{2,4}){1,4}` +
      `|\\+\\d{10,14}` +
      `|\\(\\d{3}\\)${SEP}?\\d{3}${SEP}\\d{4}` +
      `|\\d{3}${SEP}\\d{3}${SEP}\\d{4}` +
      `|0\\d{2,4}${SEP}\\d{3,4}${SEP}?\\d{3,4})` +
      `(?![\\w]|${SEP}\\d)`,
  ),
  // Eight characters of digits and separators at least (a French number has no run of three digits).
  pretest: (text) => /\d[\d .()+-]{7}/.test(text),
  holdFrom: (text) => trailingRunStart(text, phoneChar, 40),
});

export const ssn = regexDetector({
  slug: "ssn",
  label: "SSN",
  maxSpan: 48,
  // Area 000, 666 and 9xx are never issued, nor group 00 or serial 0000 (SSA). Bare nine digits only after a cue.
  // After the cue, `\s*(?:(?:is|:|#)\s*)?` rather than `\s*(?:is|:|#)?\s*` (the same texts): two gaps in a row would
  // try every split of a run of spaces, quadratic in its length (tests: detectors/backtracking.test.ts).
  re: /(?<![\w-])(?!000|666|9\d\d)\d{3}([- ])(?!00)\d{2}\1(?!0000)\d{4}(?![\w-])|\b(?:ssn|social security(?: number| no\.?)?)\s*(?:(?:is|:|#)\s*)?(?!000|666|9\d\d)\d{3}(?!00)\d{2}(?!0000)\d{4}\b/i,
  pretest: hasDigitRun(2),
  holdFrom: (text) => lastTokensStart(text, 6, 48),
});

/** Luhn checksum over the digits of `text`. */
export function luhn(digits: string): boolean {
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** Issuer prefixes and lengths of the card networks (Visa, Mastercard, Amex, Discover, JCB, Diners, UnionPay). */
function plausibleCard(digits: string): boolean {
  const n = digits.length;
  if (/^4/.test(digits)) return n === 13 || n === 16 || n === 19;
  if (/^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/.test(digits)) return n === 16;
  if (/^3[47]/.test(digits)) return n === 15;
  if (/^(6011|65|64[4-9])/.test(digits)) return n >= 16 && n <= 19;
  if (/^35(2[89]|[3-8]\d)/.test(digits)) return n >= 16 && n <= 19;
  if (/^3(0[0-5]|[689])/.test(digits)) return n >= 14 && n <= 19;
  if (/^62/.test(digits)) return n >= 16 && n <= 19;
  return false;
}

export const creditCard = regexDetector({
  slug: "credit-card",
  label: "CREDIT_CARD",
  maxSpan: 64,
  // Grouped with spaces or dashes, or with dots (one kind: `4111.1111 1111` is not one number).
  re: /(?<![\w-])\d(?:[ .-]?\d){12,18}(?![\w]|[ .-]\d)/,
  pretest: hasDigitRun(4),
  accept: (m) => {
    const dotted = m[0].includes(".");
    if (dotted && /[ -]/.test(m[0])) return false;
    const digits = m[0].replace(/[ .-]/g, "");
    return plausibleCard(digits) && luhn(digits);
  },
  holdFrom: (text) => trailingRunStart(text, cardChar, 64),
});

const OCTET = /^(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/;
/** IPv4 candidates: four dotted groups of digits (checked below); no look-around, so one fast pass. */
const V4 = /\d{1,3}\.\d{1,3}\.\d{1,3}\.\d{1,3}/g;
/**
 * IPv6 candidates: maximal runs of hex digits and colons, kept when they hold two colons (checked below). Matched
 * whole, then counted: `[0-9A-Fa-f]*:[0-9A-Fa-f]*:…` would rescan a long run of hex digits from each of its
 * characters, quadratic in its length.
 */
const V6 = /[0-9A-Fa-f:]+/g;
const twoColons = (run: string) => run.indexOf(":", run.indexOf(":") + 1) > 0;
const H = "[0-9A-Fa-f]{1,4}";
const V6_EXACT = new RegExp(`^(?:(?:${H}:){7}${H}|(?:${H}:){1,6}:(?:${H}:){0,5}${H}|::(?:${H}:){0,6}${H}|(?:${H}:){1,7}:)$`);
const isWordCode = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;

function ipFindings(text: string): Finding[] {
  const found: Finding[] = [];
  V4.lastIndex = 0;
  for (let m = V4.exec(text); m !== null; m = V4.exec(text)) {
    const start = m.index;
    const end = start + m[0].length;
    const before = text.charCodeAt(start - 1);
    const after = text.charCodeAt(end);
    // Not part of a longer dotted number (a version "1.2.3.4.5") or of a word.
    if (isWordCode(before) || before === 46 || isWordCode(after) || (after === 46 && isDigitCode(text.charCodeAt(end + 1)))) {
      V4.lastIndex = start + 1;
      continue;
    }
    if (m[0].split(".").every((octet) => OCTET.test(octet))) found.push({ start, end, pattern: "ip-address" });
  }
  if (text.includes("::") || /[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:[0-9A-Fa-f]{1,4}:/.test(text)) {
    V6.lastIndex = 0;
    for (let m = V6.exec(text); m !== null; m = V6.exec(text)) {
      const candidate = m[0];
      if (!twoColons(candidate)) continue;
      if (isWordCode(text.charCodeAt(m.index - 1)) || isWordCode(text.charCodeAt(m.index + candidate.length))) continue;
      if (!V6_EXACT.test(candidate)) continue;
      // Compressed IPv6 needs some substance: "::1", or at least three groups (so `db::add` in C++ is not an address).
      if (candidate !== "::1" && candidate.split(":").filter((g) => g !== "").length < 3) continue;
      found.push({ start: m.index, end: m.index + candidate.length, pattern: "ip-address" });
    }
  }
  return found;
}

export const ipAddress: Detector = {
  slug: "ip-address",
  label: "IP_ADDRESS",
  engine: "regex",
  maxSpan: 45,
  holdFrom: (text) => lastTokensStart(text, 1, 45),
  find: (text) => (/\d\.\d|:/.test(text) ? ipFindings(text) : []),
};
