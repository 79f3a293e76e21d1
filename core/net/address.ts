/**
 * IP addresses for the network policy of server-side fetches (safe-fetch.ts): parsing every host form a URL or a
 * resolver can carry, the ranges a fetch made on a user's behalf must not reach, CIDR ranges and the operator's
 * allow-list (`network.allow_private`). Pure functions, no I/O.
 *
 * Host forms. The WHATWG URL parser already turns `0177.0.0.1`, `0x7f.0.0.1`, `0x7f000001`, `2130706433` and `127.1`
 * into `127.0.0.1` and `[::ffff:127.0.0.1]` into `[::ffff:7f00:1]`; `parseHost` accepts the same forms (the
 * inet_aton ones too) so a resolver answer or a hand-built host string cannot slip past the checks either.
 */

/** 4 bytes (IPv4) or 16 bytes (IPv6), network order. */
export interface IpAddress {
  readonly family: 4 | 6;
  readonly bytes: Uint8Array;
}

/** A CIDR range; `bits` is the prefix length. Host bits of `base` are zero. */
export interface Cidr {
  readonly family: 4 | 6;
  readonly base: Uint8Array;
  readonly bits: number;
}

// --- parsing -----------------------------------------------------------------------------------------------------

const DECIMAL = /^[0-9]+$/;
const OCTAL = /^[0-7]*$/;
const HEX = /^[0-9a-fA-F]*$/;

/** One part of a lenient IPv4 host: `0x…` hex (digits may be empty), `0…` octal, else decimal. */
function ipv4Part(part: string): number | undefined {
  if (part === "") return undefined;
  let digits = part;
  let radix = 10;
  if (part.length >= 2 && (part.startsWith("0x") || part.startsWith("0X"))) {
    digits = part.slice(2);
    radix = 16;
    if (!HEX.test(digits)) return undefined;
  } else if (part.length >= 2 && part.startsWith("0")) {
    digits = part.slice(1);
    radix = 8;
    if (!OCTAL.test(digits)) return undefined;
  } else if (!DECIMAL.test(digits)) {
    return undefined;
  }
  if (digits === "") return 0;
  // Long runs of digits lose precision, but every such value is far beyond any limit below anyway.
  const value = Number.parseInt(digits, radix);
  return Number.isFinite(value) ? value : undefined;
}

/**
 * IPv4 in every form `inet_aton` and the WHATWG URL parser accept: `127.0.0.1`, `0177.0.0.1` (octal), `0x7f.0.0.1`
 * and `0x7f000001` (hex), `2130706433` (one decimal number), `127.1` and `127.0.1` (shortened: the last part fills
 * the remaining bytes), one trailing dot. Anything else (a domain name) is `undefined`.
 */
export function parseIPv4(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length > 1 && parts[parts.length - 1] === "") parts.pop();
  if (parts.length === 0 || parts.length > 4) return undefined;
  const numbers: number[] = [];
  for (const part of parts) {
    const value = ipv4Part(part);
    if (value === undefined) return undefined;
    numbers.push(value);
  }
  const last = numbers.pop()!;
  if (numbers.some((n) => n > 255)) return undefined;
  if (last >= 256 ** (4 - numbers.length)) return undefined;
  const bytes = new Uint8Array(4);
  numbers.forEach((n, i) => (bytes[i] = n));
  for (let i = 3, rest = last; i >= numbers.length; i--, rest = Math.floor(rest / 256)) bytes[i] = rest % 256;
  return bytes;
}

/** Strict dotted-quad IPv4 (`10.0.0.0`): four decimal parts 0–255, no leading zeros (config entries). */
export function parseIPv4Strict(text: string): Uint8Array | undefined {
  const parts = text.split(".");
  if (parts.length !== 4) return undefined;
  const bytes = new Uint8Array(4);
  for (let i = 0; i < 4; i++) {
    const part = parts[i]!;
    if (!DECIMAL.test(part) || part.length > 3 || (part.length > 1 && part.startsWith("0"))) return undefined;
    const value = Number(part);
    if (value > 255) return undefined;
    bytes[i] = value;
  }
  return bytes;
}

/** IPv6 text (RFC 4291 §2.2, a dotted IPv4 tail allowed), without brackets. A zone (`%eth0`) is refused: `undefined`. */
export function parseIPv6(text: string): Uint8Array | undefined {
  if (text.length < 2 || text.length > 45 || !/^[0-9a-fA-F:.]+$/.test(text)) return undefined;
  const halves = text.split("::");
  if (halves.length > 2) return undefined;
  const groupsOf = (half: string): number[] | undefined => {
    if (half === "") return [];
    const out: number[] = [];
    const pieces = half.split(":");
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i]!;
      if (i === pieces.length - 1 && piece.includes(".")) {
        const v4 = parseIPv4Strict(piece);
        if (!v4) return undefined;
        out.push((v4[0]! << 8) | v4[1]!, (v4[2]! << 8) | v4[3]!);
      } else {
        if (piece.length < 1 || piece.length > 4 || !HEX.test(piece)) return undefined;
        out.push(Number.parseInt(piece, 16));
      }
    }
    return out;
  };
  const head = groupsOf(halves[0]!);
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : [];
  if (!head || !tail) return undefined;
  // A dotted tail only at the very end.
  if (halves.length === 2 && halves[0]!.includes(".")) return undefined;
  let groups: number[];
  if (halves.length === 2) {
    const fill = 8 - head.length - tail.length;
    if (fill < 1) return undefined;
    groups = [...head, ...new Array<number>(fill).fill(0), ...tail];
  } else {
    if (head.length !== 8) return undefined;
    groups = head;
  }
  const bytes = new Uint8Array(16);
  groups.forEach((g, i) => {
    bytes[2 * i] = g >> 8;
    bytes[2 * i + 1] = g & 0xff;
  });
  return bytes;
}

/**
 * The IP address a URL host (or a resolver answer) denotes, or `undefined` for a domain name: IPv6 with or without
 * brackets, IPv4 in any `parseIPv4` form. An IPv4-mapped IPv6 address (`::ffff:127.0.0.1`) is the IPv4 address it
 * maps (a connection to it reaches exactly that), so it comes back as family 4.
 */
export function parseHost(host: string): IpAddress | undefined {
  const inner = host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
  if (inner.includes(":")) {
    const bytes = parseIPv6(inner);
    if (!bytes) return undefined;
    return unmap({ family: 6, bytes });
  }
  if (inner !== host) return undefined;
  const v4 = parseIPv4(inner);
  return v4 ? { family: 4, bytes: v4 } : undefined;
}

/** `::ffff:a.b.c.d` → `a.b.c.d`; anything else unchanged. */
function unmap(address: IpAddress): IpAddress {
  if (address.family === 6 && inCidr(address, MAPPED)) return { family: 4, bytes: address.bytes.slice(12) };
  return address;
}

/** Canonical text: dotted IPv4, RFC 5952 IPv6 (lower case, longest zero run as `::`). No brackets. */
export function formatIp(address: IpAddress): string {
  const b = address.bytes;
  if (address.family === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push((b[i]! << 8) | b[i + 1]!);
  let bestStart = -1;
  let bestLength = 1;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      bestStart = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = (list: number[]) => list.map((g) => g.toString(16)).join(":");
  if (bestStart < 0) return hex(groups);
  return `${hex(groups.slice(0, bestStart))}::${hex(groups.slice(bestStart + bestLength))}`;
}

// --- CIDR ranges ---------------------------------------------------------------------------------------------------

/** `10.0.0.0/8`, `fc00::/7`, or a single address (`/32`, `/128` implied). Strict: `undefined` on anything else. */
export function parseCidr(text: string): Cidr | undefined {
  const slash = text.indexOf("/");
  const addressText = slash < 0 ? text : text.slice(0, slash);
  const prefixText = slash < 0 ? undefined : text.slice(slash + 1);
  let family: 4 | 6;
  let bytes: Uint8Array | undefined;
  if (addressText.includes(":")) {
    family = 6;
    bytes = parseIPv6(addressText);
  } else {
    family = 4;
    bytes = parseIPv4Strict(addressText);
  }
  if (!bytes) return undefined;
  const max = family === 4 ? 32 : 128;
  let bits = max;
  if (prefixText !== undefined) {
    if (!DECIMAL.test(prefixText) || prefixText.length > 3 || (prefixText.length > 1 && prefixText.startsWith("0"))) return undefined;
    bits = Number(prefixText);
    if (bits > max) return undefined;
  }
  if (!hostBitsZero(bytes, bits)) return undefined;
  // A range inside ::ffff:0:0/96 is the IPv4 range it maps (parseHost unmaps addresses the same way).
  if (family === 6 && bits >= 96 && inCidr({ family: 6, bytes }, MAPPED)) return { family: 4, base: bytes.slice(12), bits: bits - 96 };
  return { family, base: bytes, bits };
}

function hostBitsZero(bytes: Uint8Array, bits: number): boolean {
  for (let i = 0; i < bytes.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    const mask = keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
    if ((bytes[i]! & ~mask & 0xff) !== 0) return false;
  }
  return true;
}

/** Whether the address lies inside the range (families must match). */
export function inCidr(address: IpAddress, range: Cidr): boolean {
  if (address.family !== range.family) return false;
  let bits = range.bits;
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((address.bytes[i]! & mask) !== range.base[i]) return false;
  }
  return true;
}

function cidr(text: string): Cidr {
  const range = parseCidr(text);
  if (!range) throw new Error(`bad built-in range ${text}`);
  return range;
}

const MAPPED: Cidr = { family: 6, base: Uint8Array.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 0, 0]), bits: 96 };

// --- classification --------------------------------------------------------------------------------------------------

/**
 * Why an address is special. `group` words the refusal ("private address …" / "reserved address …"); a `strict`
 * range (cloud metadata, the unspecified address) passes only an allow-list entry naming that very address, so
 * allowing `169.254.0.0/16` or `0.0.0.0/0` never opens the instance's credentials endpoint.
 */
export interface AddressClass {
  /** `loopback`, `private`, `link-local`, `CGNAT`, `cloud metadata`, `multicast`, … or an embedding's description. */
  label: string;
  group: "private" | "reserved";
  strict: boolean;
}

interface SpecialRange extends AddressClass {
  range: Cidr;
}

const special = (text: string, label: string, group: "private" | "reserved" = "private", strict = false): SpecialRange => ({
  range: cidr(text),
  label,
  group,
  strict,
});

/** Most specific first: the first match names the address. */
const IPV4_RANGES: readonly SpecialRange[] = [
  special("169.254.169.254/32", "cloud metadata", "private", true),
  special("169.254.170.2/32", "cloud metadata", "private", true), // AWS ECS task metadata
  special("100.100.100.200/32", "cloud metadata", "private", true), // Alibaba Cloud
  special("0.0.0.0/32", "unspecified", "private", true),
  special("255.255.255.255/32", "broadcast", "reserved"),
  special("0.0.0.0/8", "this network"),
  special("10.0.0.0/8", "private"),
  special("100.64.0.0/10", "CGNAT"),
  special("127.0.0.0/8", "loopback"),
  special("169.254.0.0/16", "link-local"),
  special("172.16.0.0/12", "private"),
  special("192.0.0.0/24", "IETF protocol assignments", "reserved"),
  special("192.0.2.0/24", "documentation", "reserved"),
  special("192.88.99.0/24", "6to4 relay anycast", "reserved"),
  special("192.168.0.0/16", "private"),
  special("198.18.0.0/15", "benchmarking", "reserved"),
  special("198.51.100.0/24", "documentation", "reserved"),
  special("203.0.113.0/24", "documentation", "reserved"),
  special("224.0.0.0/4", "multicast", "reserved"),
  special("240.0.0.0/4", "reserved", "reserved"),
];

const IPV6_RANGES: readonly SpecialRange[] = [
  special("::/128", "unspecified", "private", true),
  special("::1/128", "loopback"),
  special("fd00:ec2::254/128", "cloud metadata", "private", true), // AWS (IMDS over IPv6)
  special("fd20:ce::254/128", "cloud metadata", "private", true), // Google Cloud
  special("64:ff9b:1::/48", "local-use NAT64", "reserved"),
  special("100::/64", "discard-only", "reserved"),
  special("2001::/32", "Teredo", "reserved"),
  special("2001:2::/48", "benchmarking", "reserved"),
  special("2001:10::/28", "ORCHID", "reserved"),
  special("2001:20::/28", "ORCHIDv2", "reserved"),
  special("2001:db8::/32", "documentation", "reserved"),
  special("3fff::/20", "documentation", "reserved"),
  special("fc00::/7", "unique local (private)"),
  special("fe80::/10", "link-local"),
  special("fec0::/10", "site-local (deprecated)"),
  special("ff00::/8", "multicast", "reserved"),
];

const IPV4_COMPATIBLE = cidr("::/96");
const NAT64 = cidr("64:ff9b::/96");
const SIX_TO_FOUR = cidr("2002::/16");
const GLOBAL_UNICAST = cidr("2000::/3");

const v4 = (bytes: Uint8Array): IpAddress => ({ family: 4, bytes });

/** The special range an address lies in, or `undefined` for an ordinary public address. */
export function classifyAddress(address: IpAddress): AddressClass | undefined {
  const a = unmap(address);
  const ranges = a.family === 4 ? IPV4_RANGES : IPV6_RANGES;
  for (const entry of ranges) if (inCidr(a, entry.range)) return { label: entry.label, group: entry.group, strict: entry.strict };
  if (a.family === 4) return undefined;
  // IPv6 forms that embed an IPv4 address: refused when the embedded one is special (NAT64 and 6to4 carry public
  // IPv4 traffic legitimately); IPv4-compatible addresses (deprecated, RFC 4291 §2.5.5.1) are refused outright.
  if (inCidr(a, IPV4_COMPATIBLE)) {
    const inner = v4(a.bytes.slice(12));
    const innerClass = classifyAddress(inner);
    return { label: `IPv4-compatible, embeds ${formatIp(inner)}${innerClass ? ` (${innerClass.label})` : ""}`, group: "reserved", strict: false };
  }
  const embedded = inCidr(a, NAT64) ? { kind: "NAT64", bytes: a.bytes.slice(12) } : inCidr(a, SIX_TO_FOUR) ? { kind: "6to4", bytes: a.bytes.slice(2, 6) } : undefined;
  if (embedded) {
    const inner = v4(embedded.bytes);
    const innerClass = classifyAddress(inner);
    if (!innerClass) return undefined;
    return { label: `${embedded.kind}, embeds ${formatIp(inner)} (${innerClass.label})`, group: innerClass.group, strict: innerClass.strict };
  }
  if (!inCidr(a, GLOBAL_UNICAST)) return { label: "reserved (not global unicast)", group: "reserved", strict: false };
  return undefined;
}

// --- the allow-list and the verdict ---------------------------------------------------------------------------------

/** The operator's `network.allow_private`, parsed. */
export interface AllowList {
  readonly ranges: readonly Cidr[];
}

export const EMPTY_ALLOW_LIST: AllowList = Object.freeze({ ranges: Object.freeze([]) });

/** Thrown by `parseAllowList` for a bad entry; the message names the entry (`network.allow_private[2]`). */
export class AllowListError extends Error {
  override readonly name = "AllowListError";
}

/**
 * Parses CIDR strings (`10.0.0.0/8`, `fd00::/8`) and single addresses (`127.0.0.1`, `::1`). Strict: IPv4 as a
 * dotted quad without leading zeros (`10/8` or `010.0.0.0` would be ambiguous), no host bits set past the prefix
 * (`10.0.0.1/8` is refused, with the range meant suggested).
 */
export function parseAllowList(entries: readonly string[], field = "network.allow_private"): AllowList {
  const ranges = entries.map((entry, i) => {
    const range = typeof entry === "string" ? parseCidr(entry.trim()) : undefined;
    if (range) return range;
    throw new AllowListError(`invalid config field "${field}[${i}]": ${JSON.stringify(entry)} is not an IP address or CIDR range${hint(entry)}`);
  });
  return { ranges };
}

/** A suggestion for the common mistakes. */
function hint(entry: unknown): string {
  if (typeof entry !== "string") return "";
  const [addressText, prefixText] = entry.trim().split("/");
  const address = addressText === undefined ? undefined : addressText.includes(":") ? parseIPv6(addressText) : parseIPv4Strict(addressText);
  if (!address) return ' (expected e.g. "10.0.0.0/8", "127.0.0.1", "fd00::/8" or "::1"; IPv4 as four decimal numbers)';
  const max = address.length === 4 ? 32 : 128;
  const bits = Number(prefixText);
  if (prefixText === undefined || !DECIMAL.test(prefixText) || bits > max) return ` (the prefix length must be 0 to ${max})`;
  const masked = address.slice();
  for (let i = 0; i < masked.length; i++) {
    const keep = Math.max(0, Math.min(8, bits - 8 * i));
    masked[i]! &= keep === 0 ? 0 : (0xff << (8 - keep)) & 0xff;
  }
  return ` (bits set past the prefix: did you mean "${formatIp({ family: address.length === 4 ? 4 : 6, bytes: masked })}/${bits}"?)`;
}

function allowed(address: IpAddress, allow: AllowList, strict: boolean): boolean {
  const full = address.family === 4 ? 32 : 128;
  return allow.ranges.some((range) => inCidr(address, range) && (!strict || range.bits === full));
}

/**
 * Why a fetch must not connect to this address (`private address 127.0.0.2 (loopback)`), or `undefined` when it may:
 * a public address, or a special one inside the allow-list. Text that is no IP address is refused.
 */
export function refusalReason(ip: string | IpAddress, allow: AllowList | readonly string[] = EMPTY_ALLOW_LIST): string | undefined {
  const list = Array.isArray(allow) ? parseAllowList(allow) : (allow as AllowList);
  const parsed = typeof ip === "string" ? parseHost(ip) : unmap(ip);
  if (!parsed) return `not an IP address: ${JSON.stringify(ip)}`;
  const found = classifyAddress(parsed);
  if (!found || allowed(parsed, list, found.strict)) return undefined;
  return `${found.group} address ${formatIp(parsed)} (${found.label})`;
}

/** Whether a fetch must not connect to this address (see `refusalReason`). */
export function isRefusedAddress(ip: string | IpAddress, allow: AllowList | readonly string[] = EMPTY_ALLOW_LIST): boolean {
  return refusalReason(ip, allow) !== undefined;
}
