/**
 * The routers' prompt classifier: local, deterministic and fast (no model call), so a router adds well under a
 * millisecond to a request. It reads the last user message (and the system prompt, lightly), counts weighted cues
 * per task type with a few precompiled regular expressions, and says which task type dominates, or none when no cue
 * is strong enough. A long prompt is sampled (its head and tail): cues of the task sit at the ends of a prompt, and
 * reading a fixed amount keeps the time flat whatever the prompt's length.
 */
import { lastUserText, type CanonicalRequest } from "../../core/sdk/index.ts";

/** The task types routers rank models for (quality scores per type in the config, README "Routers"). */
export const TASK_TYPES = ["coding", "reasoning", "creative", "extraction", "summarization", "translation", "chat"] as const;
export type TaskType = (typeof TASK_TYPES)[number];

export interface Classification {
  /** The dominant task type; undefined when no cue was strong enough (routers then rank by `general` quality). */
  task: TaskType | undefined;
  /** Weighted cue counts per type (what decided). */
  scores: Record<TaskType, number>;
  /** 0–1: how demanding the prompt looks (length, multi-step and reasoning cues, code); picks reasoning effort and tiers. */
  complexity: number;
  /** Characters of the last user message. */
  chars: number;
}

/** Characters read from each end of a long message. */
const HEAD = 8_000;
const TAIL = 4_000;
/** A type needs at least this score to be named. */
const MIN_SCORE = 1;

type Cue = readonly [RegExp, number];

const CUES: Record<TaskType, readonly Cue[]> = {
  coding: [
    [/```/g, 1.5],
    [/\b(?:code|coding|bug|debug(?:ging)?|stack ?trace|exception|segfault|compil(?:e|er|ing)|refactor|implement|unit tests?|regex|function|method|class|api|endpoint|typescript|javascript|python|rust|golang|java|kotlin|swift|c\+\+|c#|sql|bash|shell script|dockerfile|npm|pip|git)\b/gi, 1],
    [/^\s*(?:def |class |import |from \S+ import|function |const |let |var |public |private |#include|package |fn |func |SELECT |INSERT |CREATE TABLE)/gim, 1],
    [/(?:=>|::|\+\+|&&|\|\||!==|===|;\s*$)/gm, 0.25],
  ],
  reasoning: [
    [/\b(?:why|prove|proof|deduce|infer|logic(?:al)?|puzzle|riddle|step[- ]by[- ]step|reason(?:ing)?|think (?:through|carefully)|trade-?offs?|pros and cons|compare|analy[sz]e|evaluate|plan|strategy|calculate|compute|solve|equation|integral|derivative|probability|theorem|how many)\b/gi, 1],
    [/\d+(?:\.\d+)?\s*[-+*/^×÷=]\s*\d+/g, 0.75],
  ],
  creative: [
    [/\b(?:poem|poetry|story|stories|short story|fiction|novel|lyrics|song|haiku|limerick|sonnet|screenplay|fairy tale|rhyme|imagine|creative|brainstorm|slogan|tagline|character|plot)\b/gi, 1.25],
  ],
  extraction: [
    [/\b(?:extract|parse|pull out|list (?:all|every)|find all|identify (?:all|the)|entities|named entities|key[- ]value|fields?|structured|json|csv|yaml|table|schema|classify|categori[sz]e|label)\b/gi, 1],
    [/\bfrom the (?:following|text|document|email|page|article|input)\b/gi, 1],
  ],
  summarization: [
    [/\b(?:summari[sz]e|summary|summarization|tl;?dr|key points|main points|condense|shorten|recap|gist|abstract|outline)\b/gi, 1.5],
  ],
  translation: [
    [/\b(?:translate|translation|translated)\b/gi, 2],
    [/\b(?:in|into|to) (?:english|french|spanish|german|italian|portuguese|dutch|russian|chinese|mandarin|japanese|korean|arabic|hindi|turkish|polish|swedish|greek|hebrew)\b/gi, 0.75],
  ],
  chat: [
    [/^\s*(?:hi|hello|hey|yo|good (?:morning|afternoon|evening)|thanks|thank you|how are you|what's up)\b/gi, 1.5],
    [/\b(?:chat|talk|tell me about yourself|who are you)\b/gi, 0.75],
  ],
};

/** Cues that the prompt is demanding (multi-step, long, formal), for `complexity`. */
const DEMANDING: Cue = [/\b(?:step[- ]by[- ]step|in detail|thoroughly|rigorous(?:ly)?|edge cases|optimi[sz]e|prove|architecture|design|complex|multi-?step|carefully)\b/gi, 1];
const NUMBERED: Cue = [/^\s*\d+[.)]\s/gm, 0.5];

/** Classifies the request's prompt. */
export function classify(request: CanonicalRequest): Classification {
  const message = lastUserText(request.messages);
  const system = request.system.map((part) => part.text).join("\n");
  const text = sample(message);
  const systemText = sample(system, 2_000, 0);
  const scores = {} as Record<TaskType, number>;
  for (const task of TASK_TYPES) scores[task] = score(text, CUES[task]) + 0.5 * score(systemText, CUES[task]);
  // Asking for JSON output is an extraction cue of its own.
  const format = request.output?.format?.type;
  if (format === "json_object" || format === "json_schema") scores.extraction += 1;
  // A short message with no other cue is small talk.
  if (message.length > 0 && message.length < 80) scores.chat += 0.5;
  let task: TaskType | undefined;
  for (const candidate of TASK_TYPES) if (scores[candidate] >= MIN_SCORE && (task === undefined || scores[candidate] > scores[task])) task = candidate;
  return { task, scores, complexity: complexityOf(text, message.length, scores), chars: message.length };
}

function sample(text: string, head = HEAD, tail = TAIL): string {
  return text.length <= head + tail ? text : `${text.slice(0, head)}\n${text.slice(text.length - tail)}`;
}

function score(text: string, cues: readonly Cue[]): number {
  if (text === "") return 0;
  let total = 0;
  for (const [pattern, weight] of cues) total += Math.min(count(text, pattern), 6) * weight;
  return total;
}

function count(text: string, pattern: RegExp): number {
  pattern.lastIndex = 0;
  let n = 0;
  while (pattern.exec(text) !== null && n < 6) n++;
  pattern.lastIndex = 0;
  return n;
}

function complexityOf(text: string, chars: number, scores: Record<TaskType, number>): number {
  const length = Math.min(1, chars / 6_000) * 0.3;
  const demanding = Math.min(1, (score(text, [DEMANDING]) + score(text, [NUMBERED])) / 3) * 0.3;
  const hard = Math.min(1, (scores.reasoning + scores.coding) / 3) * 0.4;
  return Math.round(Math.min(1, length + demanding + hard) * 100) / 100;
}
