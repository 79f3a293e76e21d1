/**
 * Matrix plumbing: the (format × adapter × streamed/collected) cells, and the checks every cell repeats on the
 * recorded upstream call (right wire path, streaming flag, the gateway's upstream credentials, the upstream model).
 */
import { expect } from "bun:test";
import { ADAPTERS, WIRE, type AdapterId } from "../../support/fake-upstream/fixtures.ts";
import type { FakeUpstream, RecordedRequest } from "../../support/fake-upstream/server.ts";
import { FORMATS, type FormatId } from "./client.ts";
import { UPSTREAM_KEY } from "./setup.ts";
import { viewOf, type UpstreamView } from "./upstream-view.ts";

export interface Cell {
  format: FormatId;
  adapter: AdapterId;
  stream: boolean;
  /** `chat → anthropic (streamed)` */
  label: string;
}

export function allCells(modes: readonly boolean[] = [false, true]): Cell[] {
  return FORMATS.flatMap((format) =>
    ADAPTERS.flatMap((adapter) => modes.map((stream) => ({ format, adapter, stream, label: `${format} → ${adapter} (${stream ? "streamed" : "collected"})` }))),
  );
}

/** Asserts the request reached the adapter's own endpoint with its credentials and model, then returns its view. */
export function upstreamCall(fake: FakeUpstream, adapter: AdapterId, stream: boolean, request: RecordedRequest = fake.last()): UpstreamView {
  const pathAndQuery = request.query === "" ? request.path : `${request.path}?${request.query}`;
  expect(pathAndQuery).toMatch(WIRE[adapter].path(stream));
  const key = UPSTREAM_KEY[adapter];
  switch (adapter) {
    case "openai":
    case "openai-responses":
      expect(request.headers.authorization).toBe(`Bearer ${key}`);
      expect(request.body.model).toBe(WIRE[adapter].upstreamModel);
      break;
    case "anthropic":
      expect(request.headers["x-api-key"]).toBe(key);
      expect(request.headers["anthropic-version"]).toBe("2023-06-01");
      expect(request.body.model).toBe(WIRE[adapter].upstreamModel);
      break;
    case "gemini":
      expect(request.headers["x-goog-api-key"]).toBe(key);
      break;
    case "bedrock":
      // Signed for the fake's region with the gateway's access key (the fake refused anything its own signer disagrees with).
      expect(request.headers.authorization).toStartWith(`AWS4-HMAC-SHA256 Credential=${key}/`);
      expect(request.headers.authorization).toContain("/us-east-1/bedrock/aws4_request");
      break;
    case "azure":
    case "azure-responses":
      expect(request.headers["api-key"]).toBe(key);
      expect(request.headers.authorization).toBeUndefined();
      expect(request.body.model).toBe(WIRE[adapter].upstreamModel);
      break;
    case "vertex":
      expect(request.headers.authorization).toBe(`Bearer ${key}`);
      expect(request.headers["x-goog-api-key"]).toBeUndefined();
      break;
    case "vertex-anthropic":
      // Vertex takes the model from the URL and the version from the body.
      expect(request.headers.authorization).toBe(`Bearer ${key}`);
      expect(request.headers["anthropic-version"]).toBeUndefined();
      expect(request.body.model).toBeUndefined();
      expect(request.body.anthropic_version).toBe("vertex-2023-10-16");
      break;
  }
  const view = viewOf(adapter, request);
  expect(view.stream).toBe(stream);
  return view;
}

/** A 1×1 PNG, as clients inline small images. */
export const PNG_DATA_URL =
  "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==";
export const IMAGE_URL = "https://upload.example.com/images/eiffel-tower.png";
export const QUESTION = "What is the capital of France?";
export const WEATHER_QUESTION = "What's the weather in Paris right now?";
export const TOOL_OUTPUT = '{"temperature_c": 18, "conditions": "sunny"}';

// ── Named kinds of the `openai` adapter (matrix-kinds.test.ts, support/kinds.ts) ──────────────────────────────────

/** A (format × kind × streamed/collected) cell of the kinds matrix. */
export interface KindCell<K extends string> {
  format: FormatId;
  kind: K;
  stream: boolean;
  /** `chat → openai:mistral (streamed)` */
  label: string;
}

export function kindCells<K extends string>(kinds: readonly K[], modes: readonly boolean[] = [false, true]): KindCell<K>[] {
  return FORMATS.flatMap((format) =>
    kinds.flatMap((kind) => modes.map((stream) => ({ format, kind, stream, label: `${format} → openai:${kind} (${stream ? "streamed" : "collected"})` }))),
  );
}
