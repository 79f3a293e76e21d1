/** core/net/domain-rules.ts: parsing filter entries and matching URLs (shared with web_fetch). */
import { describe, expect, test } from "bun:test";
import { domainRefusal, excludeHosts, includeHosts, matchesRule, parseDomainRule, parseDomainRules } from "../../../core/net/domain-rules.ts";

describe("parseDomainRule", () => {
  test("normalises scheme, www., *., port, case and trailing slashes", () => {
    expect(parseDomainRule("example.com")).toEqual({ host: "example.com", path: "" });
    expect(parseDomainRule("HTTPS://WWW.Example.COM/")).toEqual({ host: "example.com", path: "" });
    expect(parseDomainRule("*.substack.com")).toEqual({ host: "substack.com", path: "" });
    expect(parseDomainRule("example.com:8080")).toEqual({ host: "example.com", path: "" });
    expect(parseDomainRule("openai.com/blog/")).toEqual({ host: "openai.com", path: "/blog" });
    expect(parseDomainRule("127.0.0.1")).toEqual({ host: "127.0.0.1", path: "" });
    expect(parseDomainRule("bücher.de")).toEqual({ host: "xn--bcher-kva.de", path: "" });
  });

  test("refuses what is not a host", () => {
    for (const bad of ["", "   ", "not a domain", "a..b", "exa mple.com", "http://", "*."]) expect(parseDomainRule(bad)).toBeUndefined();
    expect(parseDomainRules(["a.com", "b c", "d.com"]).badIndex).toBe(1);
    expect(parseDomainRules(undefined)).toEqual({ rules: [] });
  });
});

describe("matching", () => {
  const rule = (text: string) => parseDomainRule(text)!;

  test("a host matches itself and its subdomains, not look-alikes", () => {
    expect(matchesRule(new URL("https://example.com/x"), rule("example.com"))).toBe(true);
    expect(matchesRule(new URL("https://docs.example.com/x"), rule("example.com"))).toBe(true);
    expect(matchesRule(new URL("https://www.example.com/"), rule("www.example.com"))).toBe(true);
    expect(matchesRule(new URL("https://notexample.com/"), rule("example.com"))).toBe(false);
    expect(matchesRule(new URL("https://example.com.evil.org/"), rule("example.com"))).toBe(false);
  });

  test("a path rule matches that path and below, by whole segments", () => {
    expect(matchesRule(new URL("https://openai.com/blog"), rule("openai.com/blog"))).toBe(true);
    expect(matchesRule(new URL("https://openai.com/blog/post"), rule("openai.com/blog"))).toBe(true);
    expect(matchesRule(new URL("https://openai.com/blogger"), rule("openai.com/blog"))).toBe(false);
    expect(matchesRule(new URL("https://openai.com/"), rule("openai.com/blog"))).toBe(false);
  });

  test("blocked wins over allowed; an empty allowed list allows everything", () => {
    const url = new URL("https://docs.example.com/");
    expect(domainRefusal(url, [], [], "blocked_domains")).toBeUndefined();
    expect(domainRefusal(url, [rule("example.com")], [rule("docs.example.com")], "blocked_domains")).toBe("url not allowed by blocked_domains");
    expect(domainRefusal(url, [rule("other.com")], [], "excluded_domains")).toBe("url not allowed by allowed_domains");
  });

  test("engine filters: hosts deduplicated; path rules never exclude a whole host", () => {
    expect(includeHosts([rule("a.com/x"), rule("a.com"), rule("b.com")])).toEqual(["a.com", "b.com"]);
    expect(excludeHosts([rule("a.com/x"), rule("b.com")])).toEqual(["b.com"]);
  });
});
