/**
 * `person-name`: names of people without an NLP model (the peer runs Presidio). Three cues, each case-sensitive:
 * an honorific before a capitalised name (`Dr. Jane Okafor`), a phrase that introduces a name (`my name is`,
 * `Name:`, `Dear`, `signed,`), and a common given name followed by a capitalised surname (`Maria Gonzalez`). Given
 * names that are also everyday words (Will, May, Grace, Bill…) are left out of the last cue. Heuristic by design:
 * the corpus test prints its detection and false-positive rates.
 */
import { lastTokensStart } from "./hold.ts";
import { regexFindings, type Detector, type Finding } from "./types.ts";

const CAP = "[A-Z][a-z]+(?:[-'][A-Z]?[a-z]+)?";
const SURNAME = `(?:(?:van|von|de|del|da|di|le|la|al|bin|ben|O')\\s?)?${CAP}`;

/** Frequent given names in English-language data sets, minus those that are common words. */
const GIVEN = (
  "James John Robert Michael David William Richard Joseph Thomas Charles Christopher Daniel Matthew Anthony Donald " +
  "Steven Paul Andrew Joshua Kenneth Kevin Brian George Timothy Ronald Edward Jason Jeffrey Ryan Jacob Gary Nicholas " +
  "Eric Jonathan Stephen Larry Justin Scott Brandon Benjamin Samuel Gregory Alexander Patrick Jack Dennis Jerry " +
  "Tyler Aaron Jose Adam Nathan Henry Douglas Zachary Peter Kyle Noah Ethan Jeremy Walter Christian Keith Roger " +
  "Terry Austin Sean Gerald Carl Harold Dylan Arthur Lawrence Jordan Jesse Bryan Bruce Gabriel Logan Alan Juan " +
  "Albert Willie Elijah Wayne Randy Vincent Liam Mason Lucas Oliver Carlos Luis Miguel Ahmed Mohammed Muhammad Ali " +
  "Omar Hassan Wei Hiroshi Kenji Raj Arjun Rahul Priya Ananya Sofia Olga Ivan Dmitri Sergei Pierre Jean Hans Klaus " +
  "Giovanni Marco Luca Pedro Diego Mary Patricia Jennifer Linda Elizabeth Barbara Susan Jessica Sarah Karen Lisa " +
  "Nancy Betty Sandra Margaret Ashley Kimberly Emily Donna Michelle Carol Amanda Melissa Deborah Stephanie Rebecca " +
  "Sharon Laura Cynthia Dorothy Amy Kathleen Angela Shirley Emma Brenda Pamela Nicole Anna Samantha Katherine " +
  "Christine Debra Rachel Carolyn Janet Maria Catherine Heather Diane Olivia Julie Joyce Victoria Ruth Virginia " +
  "Lauren Kelly Christina Joan Evelyn Judith Andrea Hannah Megan Cheryl Jacqueline Martha Madison Teresa Gloria " +
  "Sara Janice Ann Kathryn Abigail Sophia Frances Jean Alice Judy Isabella Julia Amber Denise Danielle Marilyn " +
  "Beverly Charlotte Natalie Theresa Diana Brittany Doris Kayla Alexis Lori Fatima Aisha Mei Yuki Sakura Elena " +
  "Ingrid Astrid Francesca Lucia Isabel Carmen Ana Chloe Zoe Mia Ava Harper Ella Aria Lily Nora Leah Camila"
).split(" ");

const HONORIFIC = `\\b(?:Mr|Mrs|Ms|Mx|Miss|Dr|Prof|Professor|Sir|Dame|Madam|Mme|Mlle|Herr|Frau|Señor|Señora|Sr|Sra)\\.?\\s+(?:${CAP}\\s+){0,2}${SURNAME}\\b`;
const CUE = `(?:\\b(?:[Mm]y name is|[Mm]y name's|[Nn]ame\\s*:|[Pp]atient\\s*:|[Ff]ull name\\s*:|[Dd]ear|[Ss]igned,?|[Rr]egards,|[Ss]incerely,|[Cc]ontact person\\s*:|[Ii] am called|[Tt]his is)\\s+)(${CAP}(?:\\s+${CAP}){0,2})\\b`;
// Two capitalised words in a row (rare in prose but for names and titles); the first is then looked up.
const GIVEN_SURNAME = `\\b([A-Z][a-z]+)(?:\\s+[A-Z]\\.)?\\s+${SURNAME}\\b`;
const GIVEN_NAMES = new Set(GIVEN);

/** Capitalised words that follow a cue without being a name ("This is Monday", "Dear Sir"). */
const NOT_NAMES = new Set(
  ("Sir Madam Team All Customer Customers Client User Users Colleagues Friends Everyone Hiring Manager Support Monday Tuesday " +
    "Wednesday Thursday Friday Saturday Sunday January February March April June July August September October November " +
    "December The This That It A An Not Just Really Very What How Why When Where Who Your My Our Their His Her Important " +
    "Urgent Great Good Fine Done Ok Okay Hello Hi Thanks Thank").split(" "),
);

const honorific = new RegExp(HONORIFIC, "g");
const cue = new RegExp(CUE, "g");
const givenSurname = new RegExp(GIVEN_SURNAME, "g");

export const personName: Detector = {
  slug: "person-name",
  label: "PERSON_NAME",
  engine: "heuristic",
  // A cue of up to three tokens (`Contact person :`) before a name of up to three: the match begins at the cue.
  holdFrom: (text) => lastTokensStart(text, 6, 120),
  maxSpan: 120,
  find(text: string): Finding[] {
    // A name starts with a capital letter: a text without one has none.
    if (!/[A-Z][a-z]/.test(text)) return [];
    const found: Finding[] = [
      ...regexFindings(honorific, text, "honorific_name"),
      ...regexFindings(givenSurname, text, "given_name_surname", (m) => GIVEN_NAMES.has(m[1]!) && !NOT_NAMES.has(m[0].split(/\s+/).pop() ?? "")),
    ];
    // The cue itself is not the name: only the capture is.
    cue.lastIndex = 0;
    for (let m = cue.exec(text); m !== null; m = cue.exec(text)) {
      const name = m[1]!;
      const first = name.split(/\s+/)[0]!.replace(/'s$/, "");
      if (NOT_NAMES.has(first)) continue;
      const start = m.index + m[0].length - name.length;
      found.push({ start, end: start + name.length, pattern: "introduced_name" });
    }
    return found;
  },
};
