import { describe, expect, test } from "bun:test";
import { trailerMetadata } from "../../../../core/formats/shared/trailer-metadata.ts";
import type { Warning } from "../../../../core/model/warnings.ts";

const dropped: Warning = { code: "unsupported_field", field: "content[0]", message: "dropped" };

describe("the service_metadata an encoder writes", () => {
  test("none without the trailer's metadata (the client did not opt in)", () => {
    expect(trailerMetadata(undefined, [dropped])).toBeUndefined();
    expect(trailerMetadata({ container: { id: "c", expiresAt: 1 } }, [dropped])).toBeUndefined();
  });

  test("the trailer's own object when it already holds the request's warnings list (later warnings show there)", () => {
    const warnings: Warning[] = [];
    const metadata = { strategy: "direct", warnings };
    warnings.push(dropped);
    expect(trailerMetadata({ serviceMetadata: metadata }, warnings)).toBe(metadata);
  });

  test("warnings raised after the trailer was filled go where the edge puts them: before pipeline, else last", () => {
    const withPipeline = trailerMetadata({ serviceMetadata: { strategy: "direct", pipeline: [{ id: "p" }] } }, [dropped]);
    expect(JSON.stringify(withPipeline)).toBe(JSON.stringify({ strategy: "direct", warnings: [dropped], pipeline: [{ id: "p" }] }));
    expect(JSON.stringify(trailerMetadata({ serviceMetadata: { strategy: "direct" } }, [dropped]))).toBe(JSON.stringify({ strategy: "direct", warnings: [dropped] }));
  });
});
