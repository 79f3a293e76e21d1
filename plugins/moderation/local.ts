/**
 * The moderation plugin's local engine (the default: it needs no network and no account): a lexicon of phrasings
 * for the categories of OpenAI's moderation model — self-harm, violence, weapons and drugs (illicit), threatening
 * harassment, hate, sexual content involving minors. It catches the explicit cases and little else; a deployment
 * that needs a real classifier configures the `openai` (any `/moderations` endpoint) or `llm` engine.
 */
export const LOCAL_MODEL = "local-lexicon-v1";

const CATEGORIES: ReadonlyArray<readonly [category: string, re: RegExp]> = [
  [
    "self-harm",
    /\b(?:kill|hurt|harm|cut|hang|poison) myself\b|\b(?:want|going|plan(?:ning)?|about) to (?:die|end (?:my life|it all))\b|\bend(?:ing)? my (?:own )?life\b|\bcommit(?:ting)? suicide\b|\bsuicid(?:e|al)\b.{0,30}\b(?:method|methods|best way|painless|how)\b|\bhow (?:can|do|should|could) i (?:kill|hang|overdose|poison) myself\b/i,
  ],
  [
    "violence",
    /\bi(?:'m| am| will|'ll)? (?:going to|gonna|will|about to) (?:kill|murder|shoot|stab|strangle|behead)\b.{0,24}\b(?:you|him|her|them|everyone|everybody|my (?:\w+))\b|\bhow (?:to|do i|can i|could i) (?:kill|murder|poison|strangle) (?:a person|someone|somebody|people|him|her|my \w+)\b|\b(?:plan|planning) (?:a |an )?(?:mass shooting|massacre|terror(?:ist)? attack)\b/i,
  ],
  [
    "illicit/violent",
    /\b(?:how (?:to|do i|can i|do you)|instructions? (?:for|to|on)|steps? (?:to|for)|guide (?:to|for)|recipe for) (?:make|making|build|building|assemble|create|synthesi[sz]e|3d[- ]print) (?:a |an |some )?(?:pipe ?bomb|bomb|explosives?|ied|molotov(?: cocktail)?|napalm|nerve agent|sarin|vx|ricin|anthrax|chemical weapon|bio ?weapon|dirty bomb|ghost gun|untraceable gun)\b/i,
  ],
  [
    "illicit",
    /\b(?:how (?:to|do i|can i|do you)|recipe (?:for|to)|steps? (?:to|for)|instructions? (?:for|to)) (?:make|making|cook|cooking|synthesi[sz]e|produce|extract) (?:some )?(?:meth(?:amphetamine)?|crystal meth|crack(?: cocaine)?|heroin|fentanyl|carfentanil|lsd|mdma|ghb)\b/i,
  ],
  ["harassment/threatening", /\byou (?:should|deserve to|need to|better|ought to) (?:die|kill yourself|be killed)\b|\bkill yourself\b|\bkys\b|\bi (?:know|found out) where you live\b.{0,40}\b(?:coming|come|hurt|kill|find)\b/i],
  ["hate", /\b(?:all|every|those) (?:\w+ ){0,2}(?:should|must|deserve to|need to) (?:die|be (?:killed|exterminated|eradicated|gassed|wiped out))\b|\b(?:exterminate|eradicate|wipe out|gas) (?:all )?(?:the )?(?:\w+ )?(?:people|race|races|immigrants|jews|muslims|christians|blacks|whites|gays)\b/i],
  [
    "sexual/minors",
    /\b(?:nude|naked|porn\w*|explicit sex\w*|sexual (?:acts?|content|images?|photos?|pictures?|videos?|roleplay|fantas\w+))\b.{0,48}\b(?:child|children|kid|kids|minor|minors|underage|preteen|\d{1,2}[- ]?(?:yo|y\/o|year[- ]old))\b|\b(?:child|children|kid|kids|minor|minors|underage|preteen)\b.{0,48}\b(?:nude|naked|porn\w*|sexual (?:acts?|content|images?|photos?|pictures?|videos?|roleplay|fantas\w+))\b/i,
  ],
];

/** The categories `text` falls in (empty: not flagged). */
export function classifyLocally(text: string): string[] {
  return CATEGORIES.filter(([, re]) => re.test(text)).map(([category]) => category);
}
