/**
 * The prompt-injection prefilter (core/guardrails/detectors/injection/prefilter.ts) changes no answer: the pattern
 * set with and without it finds the same matches on every text of the labelled corpus (raw and normalised) and on
 * texts made of the patterns' own words and marks, joined every way a pattern's gaps allow; and it does turn away
 * the texts it is there for.
 */
import { describe, expect, test } from "bun:test";
import { normalize } from "../../../../core/guardrails/detectors/injection/normalize.ts";
import { matchInjection, matchInjectionUnfiltered } from "../../../../core/guardrails/detectors/injection/patterns.ts";
import { injectionMayMatch } from "../../../../core/guardrails/detectors/injection/prefilter.ts";
import { CORPUS, HELD_OUT } from "../../../fixtures/guardrails/corpus.ts";

const same = (text: string) => expect(matchInjection(text)).toEqual(matchInjectionUnfiltered(text));

/** The words, phrases and marks the patterns are written with, read from their source. */
async function patternVocabulary(): Promise<string[]> {
  const source = await Bun.file(new URL("../../../../core/guardrails/detectors/injection/patterns.ts", import.meta.url)).text();
  const words = new Set<string>();
  for (const m of source.matchAll(/w\("([^"]+)"\)|`([^`]+)`/g)) {
    for (const piece of (m[1] ?? m[2] ?? "").replace(/\(\?:|\)\??|\\\\[bsS]|\$\{[A-Z_]+\}|\[\^?\\\\S\\\\n\]|\{\d,?\d*\}/g, "|").split("|")) {
      const word = piece.replace(/\$\{w\("|["}]|\?|\\\\/g, "").trim();
      if (word.length > 0 && word.length < 30) words.add(word);
    }
  }
  for (const mark of ["<", ">", "[", "]", "/", "<|", "|>", "##", "#####", ":", ",", "-", "\n", "'", "\"", "DAN", "Do anything now", "INST", "SYS"]) words.add(mark);
  return [...words];
}

describe("prompt-injection prefilter", () => {
  test("the corpus: the same matches with and without it, raw and normalised", () => {
    const texts = [...CORPUS, ...HELD_OUT].map((s) => s.text);
    expect(texts.length).toBeGreaterThan(100);
    let matched = 0;
    for (const text of texts) {
      same(text);
      same(normalize(text).text);
      if (matchInjectionUnfiltered(normalize(text).text).length > 0) matched++;
    }
    // The comparison means something only if the corpus holds matches.
    expect(matched).toBeGreaterThan(20);
  });

  test("texts made of the patterns' own words, and the corpus's texts mutated word by word: the same matches", async () => {
    const vocabulary = await patternVocabulary();
    expect(vocabulary.length).toBeGreaterThan(300);
    const gaps = [" ", "", "  ", "\n", ", ", " \n ", "-", "'", "\n## "];
    const positives = [...CORPUS, ...HELD_OUT].filter((s) => s.expect.includes("regex-prompt-injection")).map((s) => normalize(s.text).text);
    let seed = 29;
    const random = (n: number) => {
      seed = (seed * 1103515245 + 12345) & 0x7fffffff;
      return seed % n;
    };
    let matched = 0;
    let refused = 0;
    for (let i = 0; i < 30_000; i++) {
      let text: string;
      if (i % 2 === 0) {
        // Words of the patterns in a run, consecutive in the source as a pattern's lists are, joined by gaps.
        text = "";
        let at = random(vocabulary.length);
        for (let k = 1 + random(8); k > 0; k--) {
          let word = vocabulary[at % vocabulary.length]!;
          if (random(4) === 0) word = word.toUpperCase();
          text += (text === "" && random(2) === 0 ? "" : gaps[random(gaps.length)]!) + word;
          at += 1 + random(12);
        }
      } else {
        // A known positive with a word dropped, swapped for a word of the patterns, or a gap changed.
        const words = positives[random(positives.length)]!.split(/(\s+)/);
        for (let k = 1 + random(3); k > 0; k--) {
          const j = random(words.length);
          const edit = random(3);
          words[j] = edit === 0 ? "" : edit === 1 ? vocabulary[random(vocabulary.length)]! : gaps[random(gaps.length)]!;
        }
        text = words.join("");
      }
      const unfiltered = matchInjectionUnfiltered(text);
      if (unfiltered.length > 0) matched++;
      if (!injectionMayMatch(text)) refused++;
      expect(matchInjection(text)).toEqual(unfiltered);
    }
    // Both sides of the line are exercised: many texts match, many are turned away.
    expect(matched).toBeGreaterThan(3000);
    expect(refused).toBeGreaterThan(1000);
  });

  test("every word and mark of the patterns on its own: turned away only where nothing matches", async () => {
    for (const word of await patternVocabulary()) for (const text of [word, word.toUpperCase(), `x ${word} y`]) same(text);
  });

  test("turns away ordinary texts with trigger marks, such as the bench's prompt and answer", () => {
    expect(injectionMayMatch("Benchmark request, please answer [sim tokens=16]")).toBe(false);
    expect(injectionMayMatch("Simulated reply: echo foxtrot golf hotel india juliet kilo lima mike november oscar papa quebec romeo")).toBe(false);
    expect(injectionMayMatch("[INST] hi")).toBe(true);
    expect(injectionMayMatch("a <b> tag")).toBe(true);
  });
});
