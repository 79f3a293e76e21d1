/**
 * Domain filters shared by `service:web_search`, `service:web_fetch` and the `web-fetch` plugin (through the SDK) (`allowed_domains`, `excluded_domains`,
 * `blocked_domains`). A rule is a host, optionally with a path prefix: `example.com` matches `example.com` and every
 * subdomain (`docs.example.com`); `openai.com/blog` matches `/blog` and `/blog/…` on openai.com and its subdomains.
 * A scheme, a leading `*.` or `www.`, a port and a trailing slash are ignored; matching is case-insensitive.
 */

export interface DomainRule {
  /** Lower-case ASCII host (IDNs in punycode), without `www.`. */
  host: string;
  /** `""` or a path prefix without a trailing slash (`/blog`). */
  path: string;
}

const HOST = /^[a-z0-9_-]+(\.[a-z0-9_-]+)*$/;

/** Parses one filter entry; undefined when it is not a host name (or host/path). */
export function parseDomainRule(raw: string): DomainRule | undefined {
  let text = raw.trim().toLowerCase().replace(/^[a-z][a-z0-9+.-]*:\/\//, "");
  if (text.startsWith("*.")) text = text.slice(2);
  const slash = text.search(/[/?#]/);
  let host = slash < 0 ? text : text.slice(0, slash);
  const path = slash < 0 ? "" : text.slice(slash).replace(/[?#].*$/, "").replace(/\/+$/, "");
  host = host.replace(/:\d+$/, "").replace(/\.$/, "");
  if (host.startsWith("www.")) host = host.slice(4);
  if (host === "" || host.length > 253) return undefined;
  if (!HOST.test(host)) {
    // An internationalised name: let URL turn it into punycode.
    try {
      host = new URL(`http://${host}`).hostname;
    } catch {
      return undefined;
    }
    if (!HOST.test(host)) return undefined;
  }
  return { host, path };
}

/** Parses a list, reporting the index of the first bad entry. */
export function parseDomainRules(list: readonly string[] | undefined): { rules: DomainRule[]; badIndex?: number } {
  const rules: DomainRule[] = [];
  for (const [index, raw] of (list ?? []).entries()) {
    const rule = parseDomainRule(raw);
    if (!rule) return { rules, badIndex: index };
    rules.push(rule);
  }
  return { rules };
}

/** Like parseDomainRules, dropping bad entries (declare() has already refused them). */
export function domainRules(list: unknown): DomainRule[] {
  if (!Array.isArray(list)) return [];
  return list.flatMap((raw) => {
    const rule = typeof raw === "string" ? parseDomainRule(raw) : undefined;
    return rule ? [rule] : [];
  });
}

export function matchesRule(url: URL, rule: DomainRule): boolean {
  const host = url.hostname.toLowerCase().replace(/\.$/, "");
  if (host !== rule.host && !host.endsWith(`.${rule.host}`)) return false;
  if (rule.path === "") return true;
  const path = url.pathname.toLowerCase();
  return path === rule.path || path.startsWith(`${rule.path}/`);
}

/** Why a URL is refused by the filters, or undefined when it passes. */
export function domainRefusal(url: URL, allowed: readonly DomainRule[], blocked: readonly DomainRule[], blockedName: string): string | undefined {
  if (blocked.some((rule) => matchesRule(url, rule))) return `url not allowed by ${blockedName}`;
  if (allowed.length > 0 && !allowed.some((rule) => matchesRule(url, rule))) return "url not allowed by allowed_domains";
  return undefined;
}

/** Hosts to hand an engine's own include filter (paths dropped: the engine's filter is then wider, ours narrows it). */
export function includeHosts(rules: readonly DomainRule[]): string[] {
  return [...new Set(rules.map((rule) => rule.host))];
}

/** Hosts to hand an engine's own exclude filter: only whole-host rules (excluding a host for a path rule would drop too much). */
export function excludeHosts(rules: readonly DomainRule[]): string[] {
  return [...new Set(rules.filter((rule) => rule.path === "").map((rule) => rule.host))];
}
