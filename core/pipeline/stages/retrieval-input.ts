/**
 * retrieval-input (embeddings and rerank requests only; README "Embeddings and rerank"): the bounds of the config's
 * `embeddings` section, checked before anything is reserved or called. At most `max_inputs` inputs, each of at most
 * `max_input_tokens` tokens: a text counted with o200k (only when its UTF-8 bytes, which bound its tokens, exceed the
 * limit; the count stops as soon as it is past it and yields to the event loop as it goes), a token-id array by its
 * length. A refusal is a 400 naming the input (`input[7]`).
 */
import { embeddingsOf } from "../../config/embeddings.ts";
import { errors } from "../../errors.ts";
import { tokenizer, type SlicedTokenizer } from "../../model/tokens.ts";
import { messageText } from "../../retrieval/texts.ts";
import type { Stage } from "../stage.ts";

export const retrievalInputStage: Stage = {
  name: "retrieval-input",
  async run(ctx, next) {
    const task = ctx.request.task;
    if (task?.kind !== "embeddings") return next();
    const { maxInputs, maxInputTokens } = embeddingsOf(ctx.deps.config);
    const count = task.tokens?.length ?? ctx.request.messages.length;
    if (count > maxInputs) throw errors.invalid(`input: at most ${maxInputs} inputs per request, got ${count}`, { param: "input" });
    const tooLong = (index: number, tokens: number | undefined) =>
      errors.invalid(`input[${index}]: at most ${maxInputTokens} tokens per input${tokens === undefined ? "" : `, got ${tokens}`}`, { param: `input[${index}]` });
    if (task.tokens) {
      task.tokens.forEach((ids, index) => {
        if (ids.length > maxInputTokens) throw tooLong(index, ids.length);
      });
      return next();
    }
    let counter: SlicedTokenizer | undefined;
    const messages = ctx.request.messages;
    for (let index = 0; index < messages.length; index++) {
      const text = messageText(messages[index]!);
      // Bytes bound tokens: most inputs are settled without the tokenizer.
      if (Buffer.byteLength(text) <= maxInputTokens) continue;
      counter ??= (await tokenizer()).sliced();
      if ((await counter.count(text, maxInputTokens)) > maxInputTokens) throw tooLong(index, undefined);
    }
    return next();
  },
};
