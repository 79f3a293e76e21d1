/**
 * Reading documents off the event loop, as modules see it (`helpers.documents`, exported by the SDK): a PDF's text, an
 * HTML page's main content as Markdown. Each read runs in a worker thread under the config's `documents` caps; a
 * document over a cap, or one whose read passes the deadline or the memory bound (its worker is terminated), comes
 * back as a failure whose message names the cap, never as a thrown library error.
 */

export interface PdfText {
  /** The document-info title, "" when there is none. */
  title: string;
  /** Pages' text, separated by blank lines (empty pages left out). */
  content: string;
  pages: number;
}

export interface HtmlMarkdown {
  /** The article's title, else the page's `<title>`, else "". */
  title: string;
  /** The main content as Markdown (Readability; the whole body without navigation when no article is found). */
  content: string;
}

export type DocumentFailureReason =
  /** Over a cap of the document itself: pages, decoded stream bytes, extracted characters, nesting, nodes. */
  | "too_many_pages"
  | "too_much_data"
  | "too_much_text"
  | "too_deep"
  | "too_many_nodes"
  /** Its read passed the deadline or the memory bound, and was stopped. */
  | "too_slow"
  | "too_much_memory"
  | "encrypted"
  | "unreadable";

export interface DocumentFailure {
  ok: false;
  reason: DocumentFailureReason;
  /**
   * What is wrong, worded to follow the document's name: "has more than 2,000 pages (the cap is
   * documents.pdf.max_pages)". Never a stack or a library's exception text.
   */
  message: string;
  /** The config setting that bounds it, for the cap reasons. */
  cap?: string;
}

export type DocumentResult<T> = ({ ok: true } & T) | DocumentFailure;

export interface ReadOptions {
  /** Stops the read (its worker is terminated); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
}

export interface DocumentJobs {
  pdfText(bytes: Uint8Array, options?: ReadOptions): Promise<DocumentResult<PdfText>>;
  /** `pageUrl` resolves relative links and image sources. */
  htmlMarkdown(html: string, pageUrl: string, options?: ReadOptions): Promise<DocumentResult<HtmlMarkdown>>;
}
