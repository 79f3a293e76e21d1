/**
 * Structured output on Bedrock (README "Cloud providers"): a JSON schema goes to Converse's `outputConfig.textFormat`
 * for the models Bedrock constrains natively (Claude 4.5 and later, the open-weight families it lists), or — for the
 * models that can be made to call one given tool (earlier Claude, Nova) — becomes a tool whose input is the answer:
 * the tool is forced and its input comes back as the answer's text (./response.ts, ./stream.ts). Other models, and
 * JSON mode without a schema, are reported and not sent.
 */
import type { CanonicalRequest, Warning } from "../../core/sdk/index.ts";
import { warn, warnUnsupported } from "../../core/sdk/provider.ts";
import type { ModelTraits } from "./models.ts";
import type { ToolConfig } from "./tools.ts";
import type { WireRequestBody } from "./wire.ts";

/** The tool a forced JSON answer is asked through. */
export const JSON_ANSWER_TOOL = "json_answer";

/** The JSON-answer tool's name when the request's answer comes through one, else undefined (also read by responses). */
export function jsonAnswerTool(request: CanonicalRequest, traits: ModelTraits): string | undefined {
  return request.output?.format?.type === "json_schema" && traits.structuredOutput === "tool" ? JSON_ANSWER_TOOL : undefined;
}

/** Sets the structured-output request; returns the tool config with the JSON-answer tool when one is used. */
export function applyOutput(body: WireRequestBody, request: CanonicalRequest, traits: ModelTraits, tools: ToolConfig | undefined, warnings: Warning[]): ToolConfig | undefined {
  if (request.output?.verbosity !== undefined) warnUnsupported(warnings, "verbosity", "Bedrock has no verbosity setting; it was not sent");
  const format = request.output?.format;
  if (format?.type === "json_object") {
    warnUnsupported(warnings, "response_format", "Bedrock has no JSON mode without a schema; the format was not sent");
    return tools;
  }
  if (format?.type !== "json_schema") return tools;
  if (traits.structuredOutput === "none") {
    warnUnsupported(warnings, "response_format", "This Bedrock model has neither structured outputs nor a forced tool choice; the JSON schema was not sent");
    return tools;
  }
  if (traits.structuredOutput === "native") {
    const jsonSchema: { schema: string; name?: string; description?: string } = { schema: JSON.stringify(format.schema) };
    if (/^[a-zA-Z0-9_-]{1,64}$/.test(format.name)) jsonSchema.name = format.name;
    if (format.description !== undefined) jsonSchema.description = format.description;
    body.outputConfig = { ...body.outputConfig, textFormat: { type: "json_schema", structure: { jsonSchema } } };
    return tools;
  }
  const spec = {
    name: JSON_ANSWER_TOOL,
    description: format.description ?? `Give the answer as this tool's input: a JSON value matching the ${format.name} schema.`,
    inputSchema: { json: format.schema },
  };
  const config: ToolConfig = { tools: [...(tools?.tools ?? []), { toolSpec: spec }] };
  const thinking = body.additionalModelRequestFields?.thinking !== undefined;
  if (thinking) {
    // Claude refuses a forced tool choice while thinking: the answer tool is offered, not forced.
    config.toolChoice = { auto: {} };
    warn(warnings, "approximated", "response_format", "With thinking on, Bedrock cannot force the JSON answer's tool; the model was offered it");
  } else if (tools === undefined) config.toolChoice = { tool: { name: JSON_ANSWER_TOOL } };
  else {
    config.toolChoice = tools.toolChoice !== undefined && !("auto" in tools.toolChoice) ? tools.toolChoice : { any: {} };
    warn(warnings, "approximated", "response_format", "With tools of its own, the JSON answer is one tool among them: the model must call a tool, that one to answer");
  }
  return config;
}
