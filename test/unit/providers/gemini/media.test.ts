/** Gemini `inlineData` output parts → canonical image and audio events. */
import { describe, expect, test } from "bun:test";
import { audioFormatOf, mediaEvent } from "../../../../providers/gemini/media.ts";

describe("gemini media", () => {
  test("audio MIME types → chat's format names", () => {
    expect(audioFormatOf("audio/L16;codec=pcm;rate=24000")).toBe("pcm16");
    expect(audioFormatOf("audio/wav")).toBe("wav");
    expect(audioFormatOf("audio/x-wav")).toBe("wav");
    expect(audioFormatOf("audio/mpeg")).toBe("mp3");
    expect(audioFormatOf("audio/ogg")).toBe("ogg");
  });

  test("an image is a whole data: URL image; audio a whole piece; other media nothing", () => {
    expect(mediaEvent({ mimeType: "image/jpeg", data: "AAAA" }, "m0")).toEqual({ type: "image", id: "m0", url: "data:image/jpeg;base64,AAAA", mediaType: "image/jpeg" });
    expect(mediaEvent({ mimeType: "audio/L16;codec=pcm;rate=24000", data: "BBBB" }, "m1")).toEqual({ type: "audio", id: "m1", data: "BBBB", format: "pcm16" });
    expect(mediaEvent({ mimeType: "application/pdf", data: "CCCC" }, "m2")).toBeUndefined();
  });
});
