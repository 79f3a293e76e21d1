/**
 * `address`: postal addresses without an NLP model (the peer runs Presidio). A house number, one to four
 * capitalised words and a street type (`221B Baker Street`, `1600 Pennsylvania Ave NW`), optionally a unit, a city,
 * a state and a ZIP code; German-style `Hauptstraße 12`; and post-office boxes. Heuristic by design: the corpus
 * test prints its detection and false-positive rates.
 */
import { lastTokensStart } from "./hold.ts";
import { regexFindings, type Detector, type Finding } from "./types.ts";

const STREET_TYPES =
  "Street|St|Avenue|Ave|Road|Rd|Boulevard|Blvd|Lane|Ln|Drive|Dr|Court|Ct|Way|Place|Pl|Terrace|Ter|Circle|Cir|" +
  "Parkway|Pkwy|Highway|Hwy|Square|Sq|Trail|Trl|Crescent|Close|Row|Mews|Grove|Gardens|Alley|Plaza|Route";
const CAP_WORD = "[A-Z][A-Za-z'.-]{0,24}";
const US_STYLE =
  `\\b\\d{1,6}[A-Z]?\\s+(?:(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\\.?\\s+)?(?:${CAP_WORD}\\s+){0,3}${CAP_WORD}\\s+(?:${STREET_TYPES})\\b\\.?` +
  `(?:\\s+(?:N|S|E|W|NE|NW|SE|SW)\\b)?` +
  `(?:,?\\s+(?:Apt|Apartment|Suite|Ste|Unit|Fl|Floor|#)\\.?\\s*#?[\\w-]{1,6})?` +
  `(?:,\\s*${CAP_WORD}(?:\\s+${CAP_WORD}){0,2}(?:,\\s*|\\s+)(?:[A-Z]{2}\\s+\\d{5}(?:-\\d{4})?|[A-Z]{1,2}\\d[A-Z\\d]?\\s*\\d[A-Z]{2}))?`;
const EU_STYLE = `\\b[A-ZÄÖÜ][a-zäöüß]+(?:straße|strasse|str\\.|weg|gasse|platz|allee|ring|damm)\\s+\\d{1,4}[a-z]?\\b(?:,\\s*\\d{5}\\s+[A-ZÄÖÜ][a-zäöüß]+)?`;
const PO_BOX = `\\b(?:P\\.?\\s?O\\.?\\s?Box|Post Office Box)\\s+\\d{1,6}\\b`;

const re = new RegExp(`${US_STYLE}|${EU_STYLE}|${PO_BOX}`, "g");

export const address: Detector = {
  slug: "address",
  label: "ADDRESS",
  engine: "heuristic",
  // Number, direction, four words, street type, direction, unit, city of three words, state and ZIP: 16 tokens.
  holdFrom: (text) => lastTokensStart(text, 16, 200),
  maxSpan: 200,
  find(text: string): Finding[] {
    if (!/\d/.test(text)) return [];
    return regexFindings(re, text, "postal_address");
  },
};
