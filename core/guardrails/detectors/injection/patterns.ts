/**
 * The curated prompt-injection pattern set (nine groups — instruction override, developer/admin
 * mode, system override, prompt extraction, role manipulation, DAN, safety bypass, tag/role spoofing, control
 * tokens), run on normalised text (normalize.ts: disguises undone, spelled-out words joined; whitespace left as
 * it is, hence `\s*` between words). Versioned: a change to the set bumps `INJECTION_PATTERNS_VERSION`, which the
 * pipeline entry reports, so a finding can be traced to the set that made it. All case-insensitive except DAN.
 */

import { danMayMatch, injectionMayMatch } from "./prefilter.ts";

export const INJECTION_PATTERNS_VERSION = "pi-2025.1";

const w = (words: string) => `(?:${words})`;
const G = "\\s*"; // a gap between words: any whitespace (normalisation does not collapse it), or none

const OVERRIDE_VERBS = w("ignore|disregard|forget|skip|override|bypass|drop|abandon|neglect|discard|overlook|ditch|erase|delete|clear|throw away|set aside|do not follow|don'?t follow|stop following|no longer follow");
// Word lists of the override pattern. FILLERS and QUALIFIERS share no word, and the repeats around them are bounded:
// with a word in both lists, or an unbounded repeat, a run of such words would make the backtracking engine try
// exponentially many ways to split it (a denial of service in one request). tests: guardrails/redos.test.ts.
const FILLER_WORDS = "any|every|each|of|the|my|our|these|those|such|that|this|set|entire|whole|complete|full|instructions? and|rules and|and|given|provided|you were given|you have been given|you've been given|you received|so far|until now|to date|are";
const QUALIFIER_WORDS = "previous|previously|prior|above|earlier|preceding|initial|original|existing|current|system|developer|dev|safety|past|old|former|foregoing|default|built-in|hidden|pre-?programmed|programmed|all|your";
const FILLERS = w(FILLER_WORDS);
const QUALIFIERS = w(QUALIFIER_WORDS);
const EITHER = w(`${FILLER_WORDS}|${QUALIFIER_WORDS}`);
const NOUNS = w("instructions?|prompts?|rules|directions|guidelines|directives|commands|orders|constraints|programming|training|context|messages|guidance|policies|restrictions|limitations|system prompt|configuration");

// Written so that a run of spaces, newlines or hashes is read once, not once per character of it (a backtracking
// engine would otherwise take time quadratic in the run; tests: detectors/backtracking.test.ts):
// - a gap, an optional word, a gap (`\\s*/?\\s*`) is written `\\s*(?:/\\s*)?`, the same texts without two gaps in a row;
// - a line start is only the run's first newline: a later one in the same run of whitespace begins no match the first
//   did not (its gap reads a part of the first one's), and no match of the set ends inside such a run;
// - `##…` begins at most four hashes into a run (a match of the set ends with at most four, `#{0,4}`, so the next
//   search may start there); further in, the run's rest reads as from its start, already refused.
const FIRST_NEWLINE = "(?<!\\n[^\\S\\n]*)\\n";
const RUN_OF_HASHES = "(?<!#{5})#{2,}";

/** Group name → alternatives (JavaScript regex source). */
const GROUPS: ReadonlyArray<readonly [group: string, source: string]> = [
  [
    "instruction_override",
    [
      `\\b${OVERRIDE_VERBS}\\b(?:${G}${FILLERS}\\b){0,6}${G}${QUALIFIERS}\\b(?:${G}${EITHER}\\b){0,6}${G}${NOUNS}\\b`,
      `\\b${w("ignore|disregard|forget")}${G}${w("everything|anything|all")}${G}${w("above|before|prior|previously|earlier|you (?:were|have been|'ve been) told|i (?:said|told you) before")}`,
      `\\b${w("new|updated|real|actual|true|revised|secret")}${G}instructions?${G}${w(":|are|follow|override|supersede|replace")}`,
      `\\bfrom now on,?${G}${w("you|your|u")}${G}${w("will|must|are|shall|should|only|have to|can|answer|respond|act|reply")}\\b`,
      `\\byour${G}${w("new|real|true|only|actual")}${G}${w("task|goal|purpose|instructions?|objective|mission|job|role")}${G}${w("is|are|will be|:")}`,
      `\\b${w("instead|rather")},?${G}${w("follow|obey|execute|do")}${G}${w("these|my|the following|this")}${G}${w("instructions?|commands?|orders?")}`,
    ].join("|"),
  ],
  [
    "developer_mode",
    [
      `\\b${w("enable|activate|enter|switch (?:to|into)|turn on|unlock|engage|start|boot (?:into|in)|you are (?:now )?in|you're (?:now )?in|now in")}${G}(?:the${G})?${w("developer|dev|admin|administrator|god|debug|jailbreak|jailbroken|unrestricted|unfiltered|root|sudo|maintenance|unlocked|uncensored")}${G}mode\\b`,
      `\\b${w("developer|admin|god|debug|jailbreak|unrestricted|sudo")}${G}mode${G}${w("enabled|activated|on|engaged|unlocked|is now active")}\\b`,
    ].join("|"),
  ],
  [
    "system_override",
    [
      `\\b${w("system|admin|root|security|kernel")}${G}${w("override|overrides|bypass|reset|update")}${G}${w(":|-|—|activated|engaged|initiated|in effect|mode|code|command|protocol")}`,
      `\\b${w("new|updated|override|overriding|revised|modified|replacement|alternate")}${G}system${G}${w("prompt|instructions?|message|rules|directive")}\\b`,
      `\\bthe${G}system${G}prompt${G}${w("is|has been")}${G}${w("now|updated|changed|replaced|overridden|removed")}`,
      `\\b${w("you have been|you've been|you are now|you're now")}${G}${w("reprogrammed|updated|reconfigured|freed|unlocked|patched")}\\b`,
    ].join("|"),
  ],
  [
    "prompt_extraction",
    [
      `\\b${w("reveal|show|print|display|output|repeat|recite|tell me|give me|share|leak|dump|expose|list|write out|spell out|return|paste|provide|disclose|what (?:is|are|was|were)|what's")}\\b(?:${G}${w("me|us|all|of|the|your|back|verbatim|exactly|word for word|word-for-word|full|entire|complete|whole|raw|above|first|very|text|contents?|in a code block|now")}\\b){0,8}(?:${G}${w("system|initial|original|hidden|secret|internal|developer|confidential|starting|base|pre-?prompt")}\\b){1,4}${G}${w("prompt|prompts|instructions?|message|rules|guidelines|directives|configuration|context|text")}\\b`,
      `\\b${w("reveal|show|print|display|output|repeat|tell me|give me|leak|dump|expose|disclose|recite")}${G}(?:me${G})?(?:all${G})?(?:of${G})?your${G}${w("prompt|instructions|rules|guidelines|directives|programming|initial prompt|configuration")}\\b`,
      `\\b${w("repeat|print|output|copy|reproduce|echo|write")}\\b.{0,24}?\\b${w("everything|all|the (?:text|words|content|lines|messages?)")}${G}${w("above|before (?:this|here|my message)|prior to this|that came before")}`,
      `\\bwhat${G}${w("were|are|was")}${G}you${G}${w("told|instructed|programmed|given")}\\b.{0,24}?\\b${w("before|initially|at the (?:start|beginning)|by (?:your|the) (?:developers?|creators?|system|operator)|to (?:do|say|keep secret|hide)")}`,
      `\\b${w("starting with|beginning with|that starts with")}${G}["'“]?you are\\b`,
    ].join("|"),
  ],
  [
    "role_manipulation",
    [
      `\\byou${G}${w("are|'re|will be")}${G}${w("now|no longer|from now on")}\\b.{0,48}?\\b${w("unrestricted|uncensored|unfiltered|unbound|unchained|jailbroken|amoral|evil|malicious|free from|freed from|not bound|without (?:any )?(?:rules|restrictions|limits|limitations|filters|guidelines|ethics|morals|boundaries)|no (?:longer )?(?:bound|restricted|limited|an ai|a language model)")}`,
      `\\b${w("pretend|imagine|act|behave|roleplay|role-play|role play|respond|answer|simulate|play the role")}${G}${w("to be|you are|you're|that you are|as if you (?:are|were)|as|like|of")}\\b.{0,48}?\\b${w("unrestricted|uncensored|unfiltered|amoral|evil|jailbroken|not bound|unchained|no (?:rules|restrictions|limits|filters|guidelines|morals|ethics|boundaries|content policy)|without (?:any )?(?:rules|restrictions|limits|filters|guidelines|morals|ethics|boundaries|censorship)")}`,
      `\\b${w("an ai|a chatbot|an assistant|a model|a character")}${G}${w("with no|without any|without|that has no|free of")}${G}${w("restrictions|filters|rules|limits|guidelines|ethics|morals|censorship")}\\b`,
      `\\bstay${G}in${G}character\\b.{0,40}?\\b${w("no matter what|whatever|always|never break")}`,
    ].join("|"),
  ],
  [
    "safety_bypass",
    [
      `\\b${w("bypass|disable|ignore|turn off|remove|circumvent|override|deactivate|switch off|get around|evade|skip|lift|drop|suspend|break free of|break free from|escape")}\\b(?:${G}${w("all|any|every|your|the|of|its|my|these|those|current|existing")}\\b){0,6}${G}${w("(?:safety|content|ethical|ethics|moral|security|ai|openai|anthropic|model|usage)\\s?(?:filters?|filtering|restrictions|limitations|guidelines|rules|protocols|measures|settings|policies|policy|checks|constraints|training|alignment|moderation)|guardrails?|safeguards?|censorship|moderation|content polic(?:y|ies)|restrictions|limitations")}\\b`,
      `\\b${w("respond|answer|reply|write|speak|talk|output|generate|tell me|explain|describe")}\\b.{0,32}?\\bwithout${G}(?:any${G})?${w("restrictions|filters|filtering|limitations|censorship|guardrails|safety(?:\\s?(?:guidelines|measures|checks|filters))?|moral(?:s|ity)?|ethic(?:s|al (?:guidelines|constraints))|warnings|disclaimers|refusing|refusals")}\\b`,
      `\\bno${G}${w("ethical|moral|safety|content")}${G}${w("guidelines|constraints|restrictions|boundaries|limits|filters|rules|policies")}\\b`,
      `\\b${w("never|don'?t|do not|won'?t|will not")}${G}${w("refuse|decline|say no|apologi[sz]e")}\\b.{0,40}?\\b${w("any (?:request|question)|anything|whatever")}`,
    ].join("|"),
  ],
  [
    "tag_spoofing",
    [
      `<${G}(?:/${G})?${w("system|sys|assistant|admin|administrator|instructions?|developer|root")}${G}>`,
      `\\[${G}(?:/${G})?${w("INST|SYS|SYSTEM|ADMIN|DEVELOPER|SYSTEM PROMPT|INSTRUCTIONS?")}${G}\\]`,
      `<</?SYS>>`,
      `(?:^|${FIRST_NEWLINE})${G}(?:#{1,4}${G})?${w("system|assistant|developer|admin")}${G}(?:(?:message|prompt|instructions?)${G})?:${G}${w("you|the assistant|the ai|ignore|disregard|from now|new|override|your|forget|always|never|do not|don't")}\\b`,
      `${RUN_OF_HASHES}${G}${w("system|instructions?|new instructions?|admin|developer")}${G}(?:prompt|message)?${G}#{0,4}${G}:?`,
      `\\b${w("end|begin|start")}${G}(?:of${G})?${w("system|user|admin")}${G}${w("prompt|message|instructions?|input")}\\b`,
    ].join("|"),
  ],
  [
    "control_tokens",
    [
      `<\\|${w("endoftext|im_start|im_end|im_sep|eot_id|start_header_id|end_header_id|begin_of_text|end_of_text|system|user|assistant|fim_prefix|fim_middle|fim_suffix|eom_id|python_tag|start|end|message|channel|constrain|return|call")}\\|>`,
      `\\[/?${w("BOS|EOS|SEP|CLS")}\\]`,
      `<\\/?${w("s|bos|eos")}>(?=\\s?${w("system|assistant|user|\\[INST\\]")})`,
    ].join("|"),
  ],
];

/** DAN: case-sensitive (a "Dan" is a person); the jailbreak's own phrasings. */
const DAN = /\b(?:[Yy]ou are|[Yy]ou're|[Aa]ct as|[Bb]ecome|[Cc]alled|[Nn]amed|[Hh]ello|[Hh]i|[Aa]s|[Pp]retend to be|[Pp]lay|[Rr]ole of|[Cc]haracter of)\s?DAN\b|\bDAN\s?(?:[Mm]ode|\d+(?:\.\d+)?)\b|\bDAN,\s?(?:you|which|who)\b|\b[Dd]o\s?[Aa]nything\s?[Nn]ow\b/g;

export interface InjectionMatch {
  start: number;
  end: number;
  group: string;
}

const COMBINED = new RegExp(GROUPS.map(([group, source]) => `(?<${group}>${source})`).join("|"), "gi");
const NAMES = GROUPS.map(([group]) => group);

/** Every pattern match in normalised `text`: group name and span. */
export function matchInjection(text: string): InjectionMatch[] {
  const found: InjectionMatch[] = [];
  // The prefilter is exact (prefilter.ts): a text it turns away has no match of the set.
  if (injectionMayMatch(text)) matchCombined(text, found);
  if (danMayMatch(text)) matchDan(text, found);
  return found;
}

/** `matchInjection` without the prefilter, for the test that proves the prefilter changes nothing. */
export function matchInjectionUnfiltered(text: string): InjectionMatch[] {
  const found: InjectionMatch[] = [];
  matchCombined(text, found);
  matchDan(text, found);
  return found;
}

function matchCombined(text: string, found: InjectionMatch[]): void {
  COMBINED.lastIndex = 0;
  for (let m = COMBINED.exec(text); m !== null; m = COMBINED.exec(text)) {
    if (m[0].length === 0) {
      COMBINED.lastIndex++;
      continue;
    }
    const group = NAMES.find((name) => m!.groups?.[name] !== undefined) ?? "instruction_override";
    found.push({ start: m.index, end: m.index + m[0].length, group });
  }
}

function matchDan(text: string, found: InjectionMatch[]): void {
  DAN.lastIndex = 0;
  for (let m = DAN.exec(text); m !== null; m = DAN.exec(text)) found.push({ start: m.index, end: m.index + m[0].length, group: "dan" });
}

/** The groups of the set, for documentation and tests. */
export const INJECTION_GROUPS: readonly string[] = [...NAMES, "dan"];
