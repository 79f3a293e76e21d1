/** Built-in provider adapters (static barrel so `bun build --compile` bundles them; nothing scans directories). */
import anthropic from "./anthropic/index.ts";
import { azureAdapter } from "./azure/index.ts";
import bedrock from "./bedrock/index.ts";
import cohere from "./cohere/index.ts";
import jina from "./jina/index.ts";
import voyage from "./voyage/index.ts";
import gemini from "./gemini/index.ts";
import openai from "./openai/index.ts";
import openaiResponses from "./openai-responses/index.ts";
import simulator from "./simulator/index.ts";
import { vertexAdapter } from "./vertex/index.ts";

/** Azure OpenAI speaks OpenAI's wire: it is given those two translations here (providers/azure/index.ts). */
const azure = azureAdapter({ chat: openai, responses: openaiResponses });
/** Google Vertex AI serves Gemini's and Anthropic's wires: it is given those two translations (providers/vertex/index.ts). */
const vertex = vertexAdapter({ gemini, anthropic });

/** Cohere, Jina and Voyage serve only embeddings and rerank (README "Embeddings and rerank"). */
export const builtinProviders = [openai, openaiResponses, anthropic, gemini, simulator, bedrock, azure, vertex, cohere, jina, voyage] as const;
