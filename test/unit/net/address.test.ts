/** core/net/address.ts: every host form parsed, every special range refused, CIDR ranges, the operator's allow-list. */
import { describe, expect, test } from "bun:test";
import {
  classifyAddress,
  formatIp,
  inCidr,
  isRefusedAddress,
  parseAllowList,
  parseCidr,
  parseHost,
  parseIPv4,
  parseIPv6,
  refusalReason,
} from "../../../core/net/address.ts";

const host = (text: string): string | undefined => {
  const parsed = parseHost(text);
  return parsed && formatIp(parsed);
};

describe("IPv4 host forms", () => {
  test.each([
    ["127.0.0.1", "127.0.0.1"],
    ["0177.0.0.1", "127.0.0.1"], // octal
    ["0177.0000.0.01", "127.0.0.1"],
    ["00000000000000000177.0.0.1", "127.0.0.1"],
    ["0x7f.0.0.1", "127.0.0.1"], // hex per part
    ["0X7F.0x0.0x0.0x1", "127.0.0.1"],
    ["0x7f000001", "127.0.0.1"], // one hex number
    ["2130706433", "127.0.0.1"], // one decimal number
    ["017700000001", "127.0.0.1"], // one octal number
    ["127.1", "127.0.0.1"], // shortened: the last part fills the rest
    ["127.0.1", "127.0.0.1"],
    ["0x7f.1", "127.0.0.1"],
    ["0177.1", "127.0.0.1"],
    ["127.0.0.1.", "127.0.0.1"], // one trailing dot
    ["0", "0.0.0.0"],
    ["0x", "0.0.0.0"], // WHATWG: empty hex digits are 0
    ["2130706434", "127.0.0.2"],
    ["0177.0.0.2", "127.0.0.2"],
    ["0x7f000002", "127.0.0.2"],
    ["169.254.43518", "169.254.169.254"],
    ["0xa9fea9fe", "169.254.169.254"],
    ["4294967295", "255.255.255.255"],
    ["127.65536", "127.1.0.0"], // inet_aton: the last of two parts fills three bytes
    ["10.0xff.0377.255", "10.255.255.255"],
  ])("%s is %s", (text, expected) => {
    expect(host(text)).toBe(expected);
    expect(parseHost(text)?.family).toBe(4);
  });

  test.each(["4294967296", "0x100000000", "256.0.0.1", "1.2.3.256", "127.16777216", "1.2.65536", "1.2.3.4.5", "1.2.3.08", "09", "1..2", ".1.2.3", "1.2.3.4..", "0xg", "example.com", "127.0.0.1.example", "", "1.2.3.-1", "+1.2.3.4", " 1.2.3.4"])(
    "%p is no IPv4 address",
    (text) => {
      expect(parseIPv4(text)).toBeUndefined();
      expect(parseHost(text)).toBeUndefined();
    },
  );
});

describe("IPv6 host forms", () => {
  test.each([
    ["::1", "::1"],
    ["[::1]", "::1"],
    ["0:0:0:0:0:0:0:1", "::1"],
    ["0000:0000:0000:0000:0000:0000:0000:0001", "::1"],
    ["::", "::"],
    ["FE80::1", "fe80::1"],
    ["2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1"], // RFC 5952: the first of two equal zero runs
    ["2001:0db8::0001", "2001:db8::1"],
    ["1:0:2:3:4:5:6:7", "1:0:2:3:4:5:6:7"], // one zero group is not compressed
    ["1:2:3:4:5:6:7::", "1:2:3:4:5:6:7:0"],
    ["::2:3:4:5:6:7:8", "0:2:3:4:5:6:7:8"],
    ["::127.0.0.1", "::7f00:1"], // IPv4-compatible
    ["64:ff9b::127.0.0.1", "64:ff9b::7f00:1"],
    ["2002:7f00:1::", "2002:7f00:1::"],
  ])("%s is %s", (text, expected) => {
    expect(host(text)).toBe(expected);
    expect(parseHost(text)?.family).toBe(6);
  });

  test.each([["::ffff:127.0.0.1"], ["[::ffff:7f00:1]"], ["0:0:0:0:0:ffff:7f00:1"], ["::FFFF:127.0.0.1"]])("IPv4-mapped %s is the IPv4 address it maps", (text) => {
    expect(parseHost(text)).toEqual({ family: 4, bytes: Uint8Array.from([127, 0, 0, 1]) });
  });

  test.each(["fe80::1%eth0", "fe80::1%25eth0", "1::2::3", ":::", ":1:2:3:4:5:6:7", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7", "12345::", "::1.2.3", "::1.2.3.04", "1.2.3.4::", "::1.2.3.4:1", "g::", "1:2:3:4:5:6:7:8::"])("%p is no IPv6 address", (text) => {
    expect(parseIPv6(text)).toBeUndefined();
    expect(parseHost(text)).toBeUndefined();
    expect(parseHost(`[${text}]`)).toBeUndefined();
  });

  test.each(["[::1", "::1]", "[[::1]]"])("%p: unbalanced brackets are no host form", (text) => {
    expect(parseHost(text)).toBeUndefined();
  });

  test("a bracketed IPv4 address is not a host form", () => {
    expect(parseHost("[127.0.0.1]")).toBeUndefined();
  });
});

describe("refused addresses", () => {
  test.each([
    // IPv4, every form
    ["127.0.0.1", "private address 127.0.0.1 (loopback)"],
    ["127.0.0.2", "private address 127.0.0.2 (loopback)"],
    ["127.255.255.254", "private address 127.255.255.254 (loopback)"],
    ["0177.0.0.1", "private address 127.0.0.1 (loopback)"],
    ["0x7f.0.0.1", "private address 127.0.0.1 (loopback)"],
    ["0x7f000001", "private address 127.0.0.1 (loopback)"],
    ["2130706433", "private address 127.0.0.1 (loopback)"],
    ["127.1", "private address 127.0.0.1 (loopback)"],
    ["10.1.2.3", "private address 10.1.2.3 (private)"],
    ["172.16.0.1", "private address 172.16.0.1 (private)"],
    ["172.31.255.255", "private address 172.31.255.255 (private)"],
    ["192.168.1.1", "private address 192.168.1.1 (private)"],
    ["169.254.1.1", "private address 169.254.1.1 (link-local)"],
    ["169.254.169.254", "private address 169.254.169.254 (cloud metadata)"],
    ["0xa9fea9fe", "private address 169.254.169.254 (cloud metadata)"],
    ["169.254.170.2", "private address 169.254.170.2 (cloud metadata)"],
    ["100.100.100.200", "private address 100.100.100.200 (cloud metadata)"],
    ["100.64.0.1", "private address 100.64.0.1 (CGNAT)"],
    ["100.127.255.255", "private address 100.127.255.255 (CGNAT)"],
    ["0.0.0.0", "private address 0.0.0.0 (unspecified)"],
    ["0", "private address 0.0.0.0 (unspecified)"],
    ["0.1.2.3", "private address 0.1.2.3 (this network)"],
    ["224.0.0.1", "reserved address 224.0.0.1 (multicast)"],
    ["239.255.255.250", "reserved address 239.255.255.250 (multicast)"],
    ["240.0.0.1", "reserved address 240.0.0.1 (reserved)"],
    ["255.255.255.255", "reserved address 255.255.255.255 (broadcast)"],
    ["198.18.0.1", "reserved address 198.18.0.1 (benchmarking)"],
    ["198.19.255.255", "reserved address 198.19.255.255 (benchmarking)"],
    ["192.0.0.8", "reserved address 192.0.0.8 (IETF protocol assignments)"],
    ["192.0.2.1", "reserved address 192.0.2.1 (documentation)"],
    // IPv6
    ["::1", "private address ::1 (loopback)"],
    ["[::1]", "private address ::1 (loopback)"],
    ["::", "private address :: (unspecified)"],
    ["::ffff:127.0.0.1", "private address 127.0.0.1 (loopback)"],
    ["::ffff:7f00:1", "private address 127.0.0.1 (loopback)"],
    ["::ffff:a9fe:a9fe", "private address 169.254.169.254 (cloud metadata)"],
    ["::ffff:10.0.0.1", "private address 10.0.0.1 (private)"],
    ["::127.0.0.1", "reserved address ::7f00:1 (IPv4-compatible, embeds 127.0.0.1 (loopback))"],
    ["::7f00:1", "reserved address ::7f00:1 (IPv4-compatible, embeds 127.0.0.1 (loopback))"],
    ["::8.8.8.8", "reserved address ::808:808 (IPv4-compatible, embeds 8.8.8.8)"],
    ["64:ff9b::127.0.0.1", "private address 64:ff9b::7f00:1 (NAT64, embeds 127.0.0.1 (loopback))"],
    ["64:ff9b::a9fe:a9fe", "private address 64:ff9b::a9fe:a9fe (NAT64, embeds 169.254.169.254 (cloud metadata))"],
    ["64:ff9b::192.168.0.1", "private address 64:ff9b::c0a8:1 (NAT64, embeds 192.168.0.1 (private))"],
    ["64:ff9b:1::1", "reserved address 64:ff9b:1::1 (local-use NAT64)"],
    ["2002:7f00:1::", "private address 2002:7f00:1:: (6to4, embeds 127.0.0.1 (loopback))"],
    ["2002:c0a8:0101::1", "private address 2002:c0a8:101::1 (6to4, embeds 192.168.1.1 (private))"],
    ["2002:a9fe:a9fe::", "private address 2002:a9fe:a9fe:: (6to4, embeds 169.254.169.254 (cloud metadata))"],
    ["fe80::1", "private address fe80::1 (link-local)"],
    ["febf:ffff::1", "private address febf:ffff::1 (link-local)"],
    ["fc00::1", "private address fc00::1 (unique local (private))"],
    ["fd12:3456::1", "private address fd12:3456::1 (unique local (private))"],
    ["fd00:ec2::254", "private address fd00:ec2::254 (cloud metadata)"],
    ["fd20:ce::254", "private address fd20:ce::254 (cloud metadata)"],
    ["fec0::1", "private address fec0::1 (site-local (deprecated))"],
    ["ff02::1", "reserved address ff02::1 (multicast)"],
    ["2001:db8::1", "reserved address 2001:db8::1 (documentation)"],
    ["2001::1", "reserved address 2001::1 (Teredo)"],
    ["100::1", "reserved address 100::1 (discard-only)"],
    ["4000::1", "reserved address 4000::1 (reserved (not global unicast))"],
  ])("%s: %s", (text, reason) => {
    expect(refusalReason(text)).toBe(reason);
    expect(isRefusedAddress(text, [])).toBe(true);
  });

  test.each([
    "8.8.8.8",
    "1.1.1.1",
    "93.184.215.14",
    "172.32.0.1", // just past 172.16/12
    "100.128.0.1", // just past 100.64/10
    "169.255.0.1",
    "198.20.0.1",
    "223.255.255.255",
    "::ffff:8.8.8.8",
    "2606:4700:4700::1111",
    "2a00:1450:4001:80b::200e",
    "64:ff9b::8.8.8.8", // NAT64 of a public address (DNS64 networks)
    "2002:808:808::1", // 6to4 of a public address
  ])("%s is public", (text) => {
    expect(refusalReason(text)).toBeUndefined();
    expect(classifyAddress(parseHost(text)!)).toBeUndefined();
  });

  test("text that is no address is refused", () => {
    expect(refusalReason("example.com")).toBe('not an IP address: "example.com"');
    expect(refusalReason("fe80::1%eth0")).toBe('not an IP address: "fe80::1%eth0"');
  });
});

describe("CIDR ranges", () => {
  test.each([
    ["10.0.0.0/8", 4, 8],
    ["127.0.0.1/32", 4, 32],
    ["127.0.0.1", 4, 32],
    ["0.0.0.0/0", 4, 0],
    ["172.16.0.0/12", 4, 12],
    ["fc00::/7", 6, 7],
    ["::1", 6, 128],
    ["::/0", 6, 0],
    ["2001:db8:abcd:12::/64", 6, 64],
    ["::ffff:10.0.0.0/104", 4, 8], // a mapped range is the IPv4 range
  ])("%s parses", (text, family, bits) => {
    expect(parseCidr(text)).toMatchObject({ family, bits });
  });

  test.each(["10/8", "010.0.0.0/8", "10.0.0.1/8", "10.0.0.0/33", "10.0.0.0/", "10.0.0.0/08", "10.0.0.0/-1", "10.0.0.0/8/8", "::/129", "fe80::1%eth0/128", "[::1]/128", "0x7f000001", "127.1", "", "abc", "fd00::1/8"])(
    "%p is refused",
    (text) => {
      expect(parseCidr(text)).toBeUndefined();
    },
  );

  test("membership at the edges, prefixes not multiple of 8", () => {
    const a = (text: string) => parseHost(text)!;
    const r = (text: string) => parseCidr(text)!;
    expect(inCidr(a("172.16.0.0"), r("172.16.0.0/12"))).toBe(true);
    expect(inCidr(a("172.31.255.255"), r("172.16.0.0/12"))).toBe(true);
    expect(inCidr(a("172.32.0.0"), r("172.16.0.0/12"))).toBe(false);
    expect(inCidr(a("172.15.255.255"), r("172.16.0.0/12"))).toBe(false);
    expect(inCidr(a("100.64.0.0"), r("100.64.0.0/10"))).toBe(true);
    expect(inCidr(a("100.128.0.0"), r("100.64.0.0/10"))).toBe(false);
    expect(inCidr(a("fdff:ffff::1"), r("fc00::/7"))).toBe(true);
    expect(inCidr(a("fe00::1"), r("fc00::/7"))).toBe(false);
    expect(inCidr(a("fe80::1"), r("fe80::/10"))).toBe(true);
    expect(inCidr(a("fec0::1"), r("fe80::/10"))).toBe(false);
    expect(inCidr(a("8.8.8.8"), r("0.0.0.0/0"))).toBe(true);
    expect(inCidr(a("::1"), r("0.0.0.0/0"))).toBe(false); // families never mix
    expect(inCidr(a("127.0.0.1"), r("::/0"))).toBe(false);
    expect(inCidr(a("::ffff:127.0.0.1"), r("127.0.0.0/8"))).toBe(true); // mapped: the IPv4 address
  });
});

describe("the allow-list", () => {
  test("an address inside an allowed range passes; its neighbours do not", () => {
    const allow = parseAllowList(["127.0.0.1/32", "10.0.0.0/8", "::1", "fd00:1234::/32"]);
    expect(refusalReason("127.0.0.1", allow)).toBeUndefined();
    expect(refusalReason("::ffff:127.0.0.1", allow)).toBeUndefined();
    expect(refusalReason("2130706433", allow)).toBeUndefined();
    expect(refusalReason("127.0.0.2", allow)).toBe("private address 127.0.0.2 (loopback)");
    expect(refusalReason("10.200.3.4", allow)).toBeUndefined();
    expect(refusalReason("11.0.0.1", allow)).toBeUndefined(); // public anyway
    expect(refusalReason("192.168.0.1", allow)).toBe("private address 192.168.0.1 (private)");
    expect(refusalReason("::1", allow)).toBeUndefined();
    expect(refusalReason("fd00:1234:5::1", allow)).toBeUndefined();
    expect(refusalReason("fd00:1235::1", allow)).toBe("private address fd00:1235::1 (unique local (private))");
  });

  test("string lists are accepted directly", () => {
    expect(isRefusedAddress("127.0.0.1", ["127.0.0.0/8"])).toBe(false);
    expect(isRefusedAddress("127.0.0.1", [])).toBe(true);
  });

  test("metadata and the unspecified address pass only an entry naming that very address", () => {
    const broad = parseAllowList(["169.254.0.0/16", "0.0.0.0/0", "fd00::/8", "::/0"]);
    expect(refusalReason("169.254.1.1", broad)).toBeUndefined();
    expect(refusalReason("169.254.169.254", broad)).toBe("private address 169.254.169.254 (cloud metadata)");
    expect(refusalReason("0.0.0.0", broad)).toBe("private address 0.0.0.0 (unspecified)");
    expect(refusalReason("fd00:ec2::254", broad)).toBe("private address fd00:ec2::254 (cloud metadata)");
    expect(refusalReason("::", broad)).toBe("private address :: (unspecified)");
    const exact = parseAllowList(["169.254.169.254", "fd00:ec2::254/128"]);
    expect(refusalReason("169.254.169.254", exact)).toBeUndefined();
    expect(refusalReason("fd00:ec2::254", exact)).toBeUndefined();
  });

  test("an allowed IPv4 range does not open the IPv6 forms that embed it (another host translates those)", () => {
    const allow = parseAllowList(["127.0.0.0/8"]);
    expect(refusalReason("64:ff9b::7f00:1", allow)).toBe("private address 64:ff9b::7f00:1 (NAT64, embeds 127.0.0.1 (loopback))");
    expect(refusalReason("2002:7f00:1::", allow)).toBe("private address 2002:7f00:1:: (6to4, embeds 127.0.0.1 (loopback))");
    expect(refusalReason("64:ff9b::7f00:1", parseAllowList(["64:ff9b::/96"]))).toBeUndefined();
  });

  test("a bad entry names its index, with a hint", () => {
    expect(() => parseAllowList(["127.0.0.1/32", "10.0.0.1/8"])).toThrow(
      'invalid config field "network.allow_private[1]": "10.0.0.1/8" is not an IP address or CIDR range (bits set past the prefix: did you mean "10.0.0.0/8"?)',
    );
    expect(() => parseAllowList(["10.0.0.0/33"])).toThrow('network.allow_private[0]": "10.0.0.0/33" is not an IP address or CIDR range (the prefix length must be 0 to 32)');
    expect(() => parseAllowList(["::1", "10/8"])).toThrow(/network\.allow_private\[1\]": "10\/8" is not an IP address or CIDR range \(expected e\.g\./);
    expect(() => parseAllowList(["localhost"])).toThrow(/allow_private\[0\]/);
    expect(() => parseAllowList(["fd00::1/8"])).toThrow('did you mean "fd00::/8"?');
  });

  test("surrounding white space is forgiven", () => {
    expect(refusalReason("10.0.0.1", parseAllowList([" 10.0.0.0/8 "]))).toBeUndefined();
  });
});
