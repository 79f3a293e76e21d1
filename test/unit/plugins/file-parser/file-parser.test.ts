/** plugins/file-parser: which parts are PDFs, names, the annotations a client sends back, and annotating replies. */
import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../../core/model/events.ts";
import type { FilePart } from "../../../../core/model/parts.ts";
import { annotateParts, annotateStream, fileAnnotation, fileHash, resentTexts } from "../../../../plugins/file-parser/annotations.ts";
import { isPdf, nameOf } from "../../../../plugins/file-parser/pdf-source.ts";
import { canonicalRequest } from "../../pipeline/helpers.ts";

const file = (data: string, extra: Partial<FilePart> = {}): FilePart => ({ type: "file", data, ...extra });

describe("isPdf / nameOf", () => {
  test("by media type, data URL, file name or URL path; provider file ids and other files are not read", () => {
    expect(isPdf(file("data:application/pdf;base64,AAAA"))).toBe(true);
    expect(isPdf(file("https://example.com/get?id=1", { mediaType: "application/pdf" }))).toBe(true);
    expect(isPdf(file("data:application/octet-stream;base64,AAAA", { filename: "Scan.PDF" }))).toBe(true);
    expect(isPdf(file("https://example.com/docs/a.pdf"))).toBe(true);
    expect(isPdf(file("https://example.com/docs/a.html"))).toBe(false);
    expect(isPdf(file("file-abc123", { mediaType: "application/pdf" }))).toBe(false);
    expect(isPdf(file("data:text/plain;base64,aGk="))).toBe(false);
  });

  test("the name is the file name, else the URL's last segment", () => {
    expect(nameOf(file("https://example.com/docs/annual%20report.pdf"))).toBe("annual report.pdf");
    expect(nameOf(file("data:application/pdf;base64,AAAA", { filename: "x.pdf" }))).toBe("x.pdf");
    expect(nameOf(file("data:application/pdf;base64,AAAA"))).toBeUndefined();
  });
});

describe("annotations sent back", () => {
  const hash = fileHash("data:application/pdf;base64,AAAA");
  const annotation = fileAnnotation(hash, "a.pdf", "the text");

  test("from Responses text parts (kept on decode) and from chat assistant messages in the body as received", () => {
    const responses = canonicalRequest({ format: "responses", messages: [{ role: "assistant", parts: [{ type: "text", text: "ok", annotations: [annotation, { type: "url_citation" }] }] }] });
    expect(resentTexts(responses)).toEqual(new Map([[hash, "the text"]]));

    const chat = canonicalRequest({
      format: "chat",
      original: { messages: [{ role: "user", content: "x" }, { role: "assistant", content: "ok", annotations: [annotation] }] },
      warnings: [
        { code: "unknown_field", field: "messages[1].annotations", message: "Unknown message field `annotations` was ignored" },
        { code: "unknown_field", field: "messages[0].colour", message: "…" },
      ],
    });
    expect(resentTexts(chat)).toEqual(new Map([[hash, "the text"]]));
    // The annotations were used: their "unknown field" warning goes, others stay.
    expect(chat.warnings.map((w) => w.field)).toEqual(["messages[0].colour"]);
  });

  test("malformed annotations are ignored", () => {
    const chat = canonicalRequest({
      format: "chat",
      original: { messages: [{ role: "assistant", annotations: [{ type: "file" }, { type: "file", file: { hash: 1, content: [] } }, { type: "file", file: { hash: "h", content: [{ type: "image_url" }] } }] }] },
    });
    expect(resentTexts(chat).size).toBe(0);
  });
});

describe("annotating the reply", () => {
  const annotation = fileAnnotation("h", undefined, "t");

  test("the first text part gets the annotations (after its own); no text part: unchanged", () => {
    const parts = annotateParts([{ type: "reasoning", text: "r" }, { type: "text", text: "a", annotations: [{ type: "url_citation" }] }, { type: "text", text: "b" }], [annotation]);
    expect(parts[1]).toEqual({ type: "text", text: "a", annotations: [{ type: "url_citation" }, annotation] });
    expect(parts[2]).toEqual({ type: "text", text: "b" });
    expect(annotateParts([{ type: "tool-call", id: "c", name: "f", arguments: "{}" }], [annotation])).toHaveLength(1);
  });

  test("streams: the first text-end carries them", async () => {
    async function* source(): AsyncGenerator<StreamEvent> {
      yield { type: "text-start", id: "t1" };
      yield { type: "text-end", id: "t1" };
      yield { type: "text-start", id: "t2" };
      yield { type: "text-end", id: "t2" };
    }
    const out: StreamEvent[] = [];
    for await (const event of annotateStream(source(), [annotation])) out.push(event);
    expect(out.filter((e) => e.type === "text-end")).toEqual([{ type: "text-end", id: "t1", annotations: [annotation] }, { type: "text-end", id: "t2" }]);
  });
});
