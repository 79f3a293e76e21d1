/** The config file's `documents` section (README "Caps on heavy work"): defaults, every key, refused values naming the field. */
import { expect, test } from "bun:test";
import { buildConfig, ConfigError, validateConfigFile } from "../../../core/config/load.ts";

const MIB = 1024 * 1024;
const build = (raw: unknown) => buildConfig(validateConfigFile(raw), {}, "/cfg");

test("defaults: 2 workers, 30 s, 512 MB; PDFs of 2,000 pages, 64 MB decoded, 2 M characters; HTML 512 deep, 200,000 nodes", () => {
  expect(build({}).documents).toEqual({
    workers: 2,
    timeoutMs: 30_000,
    maxMemoryBytes: 512 * MIB,
    pdf: { maxPages: 2_000, maxDecodedBytes: 64 * MIB, maxChars: 2_000_000 },
    html: { maxDepth: 512, maxNodes: 200_000 },
  });
});

test("every key is read; an absent one keeps its default", () => {
  const documents = { workers: 4, timeout_ms: 5_000, max_memory_bytes: 128 * MIB, pdf: { max_pages: 10, max_decoded_bytes: 4096, max_chars: 99 }, html: { max_depth: 64 } };
  expect(build({ documents }).documents).toEqual({
    workers: 4,
    timeoutMs: 5_000,
    maxMemoryBytes: 128 * MIB,
    pdf: { maxPages: 10, maxDecodedBytes: 4096, maxChars: 99 },
    html: { maxDepth: 64, maxNodes: 200_000 },
  });
});

test("refused values name the field", () => {
  const cases: Array<[Record<string, unknown>, string]> = [
    [{ workers: 0 }, "documents.workers"],
    [{ timeout_ms: 50 }, "documents.timeout_ms"],
    [{ max_memory_bytes: 1024 }, "documents.max_memory_bytes"],
    [{ pdf: { max_pages: 0 } }, "documents.pdf.max_pages"],
    [{ pdf: { max_decoded_bytes: 1.5 } }, "documents.pdf.max_decoded_bytes"],
    [{ html: { max_depth: 4 } }, "documents.html.max_depth"],
    [{ html: { max_nodes: 10 } }, "documents.html.max_nodes"],
    [{ pdf: { colour: 1 } }, "documents.pdf"],
  ];
  for (const [documents, field] of cases) {
    expect(() => build({ documents })).toThrow(ConfigError);
    expect(() => build({ documents })).toThrow(`"${field}`);
  }
});
