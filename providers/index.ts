/** Built-in provider adapters (static barrel so `bun build --compile` bundles them; nothing scans directories). */
import anthropic from "./anthropic/index.ts";
import bedrock from "./bedrock/index.ts";
import gemini from "./gemini/index.ts";
import openai from "./openai/index.ts";
import openaiResponses from "./openai-responses/index.ts";
import simulator from "./simulator/index.ts";

export const builtinProviders = [openai, openaiResponses, anthropic, gemini, simulator, bedrock] as const;
