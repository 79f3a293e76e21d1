/**
 * Small PDFs made in the test (no fixtures on disk): a valid one-page PDF showing some lines in Helvetica, the same
 * PDF password-protected (a standard security handler whose empty user password does not open it, which is all a
 * reader needs to see to refuse it), and a corrupt one.
 */

export interface PdfOptions {
  /** Adds an /Encrypt dictionary no empty password opens. */
  encrypted?: boolean;
  /** Pads the content stream with this many bytes of a PDF comment (an oversized yet valid file). */
  padding?: number;
}

export function minimalPdf(lines: string[], options: PdfOptions = {}): Uint8Array {
  const escape = (text: string) => text.replace(/[\\()]/g, (c) => `\\${c}`);
  const pad = options.padding ? `% ${"x".repeat(options.padding)}\n` : "";
  const stream = `${pad}BT /F1 18 Tf 72 720 Td 22 TL ${lines.map((line) => `(${escape(line)}) Tj T*`).join(" ")} ET`;
  const objects = [
    "<< /Type /Catalog /Pages 2 0 R >>",
    "<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
    "<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>",
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>",
    `<< /Filter /Standard /V 1 /R 2 /O <${"ab".repeat(32)}> /U <${"cd".repeat(32)}> /P -4 >>`,
  ];
  let out = "%PDF-1.4\n";
  const offsets: number[] = [];
  objects.forEach((body, index) => {
    offsets.push(out.length);
    out += `${index + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = out.length;
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, "0")} 00000 n \n`;
  const encrypt = options.encrypted ? ` /Encrypt 6 0 R /ID [<${"01".repeat(16)}> <${"01".repeat(16)}>]` : "";
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R${encrypt} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new TextEncoder().encode(out);
}

/** A file that claims to be a PDF and is not readable as one. */
export const corruptPdf = (): Uint8Array => new TextEncoder().encode("%PDF-1.4\nthis is not really a PDF\n%%EOF\n");

export function pdfDataUrl(bytes: Uint8Array): string {
  return `data:application/pdf;base64,${Buffer.from(bytes).toString("base64")}`;
}
