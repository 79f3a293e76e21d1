/**
 * Time and output bounds of a command the model runs (bash, shell). The model may ask for its own `timeout_ms` and
 * `max_output_length`; the gateway clamps both to a cap instead of refusing, because a model that asks for "an hour"
 * is better served by the longest run allowed than by an error it has to recover from.
 *
 * The agent loop has its own per-call limit (config `agent_loop.tool_timeout_ms`, default 30 s); the tools tell it
 * how long their commands may take (`runTimeMs`): each may wait for a sandbox slot (default 30 s, after which it is
 * refused with its own error) and then run until its time-out, so those are what end it, not the loop's limit.
 */
import { DEFAULT_SANDBOX_QUEUE_TIMEOUT_MS, type ExecOptions, type ExecResult } from "../../core/sdk/index.ts";

export const DEFAULT_TIMEOUT_MS = 30_000;
export const MAX_TIMEOUT_MS = 600_000;
/** Per stream (stdout and stderr each). */
export const DEFAULT_MAX_OUTPUT_BYTES = 64 * 1024;
export const MAX_OUTPUT_BYTES = 1024 * 1024;

/** The exit status GNU `timeout` reports for a killed command; bash results use it so `exitCode` stays a number. */
export const TIMEOUT_EXIT_CODE = 124;

export interface LimitArguments {
  timeout_ms?: number;
  max_output_length?: number;
}

const clamp = (value: number | undefined, fallback: number, max: number) => Math.min(Math.max(1, Math.floor(value ?? fallback)), max);

/** How long `commands` commands of these limits may take in all, waiting for a slot included (what the loop must allow the call). */
export function commandsTimeMs(args: LimitArguments, commands: number): number {
  return (DEFAULT_SANDBOX_QUEUE_TIMEOUT_MS + clamp(args.timeout_ms, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS)) * Math.max(1, commands);
}

/** The exec options for one command: the model's limits within the caps, cancelled with the call. */
export function execOptions(args: LimitArguments, signal: AbortSignal): ExecOptions {
  return {
    timeoutMs: clamp(args.timeout_ms, DEFAULT_TIMEOUT_MS, MAX_TIMEOUT_MS),
    maxOutputBytes: clamp(args.max_output_length, DEFAULT_MAX_OUTPUT_BYTES, MAX_OUTPUT_BYTES),
    signal,
  };
}

/**
 * stderr as the model should read it: what the command wrote, plus a line saying the output was cut (so the model does
 * not take a truncated listing for the whole one). The timeout note is bash's; shell reports it in `outcome`.
 */
export function annotatedStderr(result: ExecResult, options: ExecOptions, noteTimeout: boolean): string {
  const notes: string[] = [];
  if (result.truncated) notes.push(`[output truncated: each stream is capped at ${options.maxOutputBytes} bytes]`);
  if (noteTimeout && result.timedOut) notes.push(`[command timed out after ${options.timeoutMs} ms and was killed]`);
  if (notes.length === 0) return result.stderr;
  const separator = result.stderr === "" || result.stderr.endsWith("\n") ? "" : "\n";
  return `${result.stderr}${separator}${notes.join("\n")}`;
}
