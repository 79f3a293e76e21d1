/**
 * `architecture` of a model or endpoint listing (the peer's `ModelArchitecture`): the modalities the catalog
 * declares (`output_modalities` / `input_modalities` of the model entries). An entry that declares no outputs
 * produces text, which every adapter does; one that declares no inputs is reported as reading text: an image or
 * file reaches it only if its upstream accepts it, which the gateway cannot know. No tokenizer or instruct type is known.
 */
import type { Endpoint } from "../routing/catalog.ts";

const OUTPUT_ORDER = ["text", "image", "embeddings", "rerank"] as const;
const INPUT_ORDER = ["text", "image", "file"] as const;

export interface Architecture {
  input_modalities: string[];
  output_modalities: string[];
  /** `input+input->output+output`, as the peer writes it (`text->text`, `text->text+image`). */
  modality: string;
  instruct_type: null;
  tokenizer: null;
}

/** Over every endpoint of a model (routing may pick any of them). */
export function architectureOf(endpoints: readonly Endpoint[]): Architecture {
  const outputs = new Set<string>(endpoints.flatMap((e) => e.model.outputModalities ?? ["text"]));
  const output_modalities = OUTPUT_ORDER.filter((m) => outputs.has(m));
  const inputs = new Set<string>(endpoints.flatMap((e) => e.model.inputModalities ?? ["text"]));
  const input_modalities: string[] = INPUT_ORDER.filter((m) => inputs.has(m));
  return { input_modalities, output_modalities, modality: `${input_modalities.join("+")}->${output_modalities.join("+")}`, instruct_type: null, tokenizer: null };
}
