/** Gemini wire fixtures shaped like real API traffic (generateContent bodies, alt=sse transcripts, error bodies). */

/** `data: {...}\r\n\r\n` frames, as `streamGenerateContent?alt=sse` sends them. */
export function sse(chunks: unknown[]): string {
  return chunks.map((c) => `data: ${JSON.stringify(c)}\r\n\r\n`).join("");
}

/** Thought summary, then two parallel function calls; the first call carries the thought signature. */
export const CALLS_RESPONSE = {
  candidates: [
    {
      content: {
        parts: [
          { text: "**Planning the lookup**\n\nI'll call the weather tool for both cities.", thought: true },
          { functionCall: { name: "get_weather", args: { location: "Paris" } }, thoughtSignature: "CiQB0e2Kb3dRh+BYdbZvmulSN2Pwwd75" },
          { functionCall: { name: "get_weather", args: { location: "Rome" } } },
        ],
        role: "model",
      },
      finishReason: "STOP",
      index: 0,
    },
  ],
  usageMetadata: {
    promptTokenCount: 120,
    cachedContentTokenCount: 64,
    candidatesTokenCount: 30,
    thoughtsTokenCount: 40,
    totalTokenCount: 190,
    promptTokensDetails: [{ modality: "TEXT", tokenCount: 120 }],
  },
  modelVersion: "gemini-2.5-flash",
  responseId: "mOJKaOPnFYmDz7IP4s6tgQM",
};

/** Thoughts streamed, then an answer whose first part is signed, split over three chunks. */
export const TEXT_STREAM_CHUNKS = [
  {
    candidates: [{ content: { parts: [{ text: "Thinking about the question", thought: true }], role: "model" }, index: 0 }],
    usageMetadata: { promptTokenCount: 10, totalTokenCount: 10 },
    modelVersion: "gemini-2.5-pro",
    responseId: "r-1",
  },
  {
    candidates: [{ content: { parts: [{ text: "The answer", thoughtSignature: "EpoFCpcFAdHtim9" }], role: "model" }, index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 2, thoughtsTokenCount: 15, totalTokenCount: 27 },
    modelVersion: "gemini-2.5-pro",
    responseId: "r-1",
  },
  {
    candidates: [{ content: { parts: [{ text: " is 42." }], role: "model" }, finishReason: "STOP", index: 0 }],
    usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 15, totalTokenCount: 30 },
    modelVersion: "gemini-2.5-pro",
    responseId: "r-1",
  },
];

/** The same answer as one generateContent body. */
export const TEXT_RESPONSE = {
  candidates: [
    {
      content: {
        parts: [
          { text: "Thinking about the question", thought: true },
          { text: "The answer is 42.", thoughtSignature: "EpoFCpcFAdHtim9" },
        ],
        role: "model",
      },
      finishReason: "STOP",
      index: 0,
    },
  ],
  usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5, thoughtsTokenCount: 15, totalTokenCount: 30 },
  modelVersion: "gemini-2.5-pro",
  responseId: "r-1",
};

/** Google's error body. */
export function googleError(code: number, status: string, message: string, reason?: string): Record<string, unknown> {
  const error: Record<string, unknown> = { code, message, status };
  if (reason) error.details = [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason, domain: "googleapis.com" }];
  return { error };
}
