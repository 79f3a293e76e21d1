/** pino logger with secrets redacted wherever they could appear. */
import pino, { type Logger } from "pino";

export const REDACT_PATHS = [
  "authorization",
  "*.authorization",
  "headers.authorization",
  "headers['x-api-key']",
  "apiKey",
  "*.apiKey",
  "api_key",
  "*.api_key",
  "key",
  "secret",
  "*.secret",
];

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({ level, redact: { paths: REDACT_PATHS, censor: "[redacted]" }, base: undefined }, destination);
}
