/**
 * Gemini API (`generativelanguage.googleapis.com/v1beta`) wire shapes for `generateContent` and
 * `streamGenerateContent?alt=sse`. Response-side types are loose: upstream JSON is untrusted.
 */

/** One part of a content; exactly one payload field is set, `thought` / `thoughtSignature` ride along. */
export interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  inlineData?: { mimeType: string; data: string };
  fileData?: { mimeType?: string; fileUri: string };
  functionCall?: { name: string; args?: Record<string, unknown>; id?: string };
  functionResponse?: { name: string; response: Record<string, unknown>; id?: string };
  executableCode?: unknown;
  codeExecutionResult?: unknown;
}

/** A turn: `user` (also function responses) or `model`. */
export interface GeminiContent {
  role?: "user" | "model";
  parts: GeminiPart[];
}

/** `generationConfig.thinkingConfig`: a token budget (2.5) or a level (3.x), never both. */
export interface GeminiThinkingConfig {
  thinkingBudget?: number;
  thinkingLevel?: string;
  includeThoughts?: boolean;
}

/** `generationConfig`. */
export interface GeminiGenerationConfig {
  temperature?: number;
  topP?: number;
  topK?: number;
  maxOutputTokens?: number;
  stopSequences?: string[];
  seed?: number;
  presencePenalty?: number;
  frequencyPenalty?: number;
  responseMimeType?: string;
  responseSchema?: Record<string, unknown>;
  responseJsonSchema?: Record<string, unknown>;
  thinkingConfig?: GeminiThinkingConfig;
  /** Output kinds asked for: `TEXT`, `IMAGE`, `AUDIO`. */
  responseModalities?: string[];
}

/** A function the model may call. */
export interface GeminiFunctionDeclaration {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
  parametersJsonSchema?: Record<string, unknown>;
}

/** The body POSTed to `models/{model}:generateContent` / `:streamGenerateContent`. */
export interface GeminiRequestBody {
  contents: GeminiContent[];
  systemInstruction?: { parts: GeminiPart[] };
  tools?: Array<{ functionDeclarations: GeminiFunctionDeclaration[] }>;
  toolConfig?: { functionCallingConfig: { mode: "AUTO" | "ANY" | "NONE"; allowedFunctionNames?: string[] } };
  generationConfig?: GeminiGenerationConfig;
}

/** `usageMetadata`: `promptTokenCount` includes cached tokens; `candidatesTokenCount` excludes thoughts. */
export interface GeminiUsage {
  promptTokenCount?: number;
  cachedContentTokenCount?: number;
  candidatesTokenCount?: number;
  thoughtsTokenCount?: number;
  toolUsePromptTokenCount?: number;
  totalTokenCount?: number;
}

/** Google's error body `{error: {code, message, status, details}}`. */
export interface GeminiError {
  code?: number;
  message?: string;
  status?: string;
  details?: Array<{ reason?: string; [key: string]: unknown }>;
}

/** A whole reply, or one streamed chunk of it. */
export interface GeminiResponse {
  candidates?: Array<{ content?: { role?: string; parts?: GeminiPart[] }; finishReason?: string; index?: number }>;
  usageMetadata?: GeminiUsage;
  modelVersion?: string;
  responseId?: string;
  promptFeedback?: { blockReason?: string };
  error?: GeminiError;
}
