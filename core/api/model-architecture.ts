/**
 * `architecture` of a model or endpoint listing (the peer's `ModelArchitecture`): the output modalities the catalog
 * declares (`output_modalities` of the model entries; an entry that declares none produces text, which every
 * adapter does). The catalog declares no input modalities, so text is reported: an image or file reaches a model
 * only if its upstream accepts it, which the gateway cannot know. No tokenizer or instruct type is known.
 */
import type { Endpoint } from "../routing/catalog.ts";

const OUTPUT_ORDER = ["text", "image"] as const;

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
  const input_modalities = ["text"];
  return { input_modalities, output_modalities, modality: `${input_modalities.join("+")}->${output_modalities.join("+")}`, instruct_type: null, tokenizer: null };
}
