/**
 * An example third-party plugin, loaded from the config's `extensions` by path:
 *   {"extensions": [{"module": "./examples/plugins/shout.ts", "options": {"suffix": "!"}}]}
 * It upper-cases the final text of non-streamed responses when a request names it: `plugins: [{"id": "shout"}]`.
 * Runtime values come from the gateway (brand via Symbol.for), so a copy of this module outside the binary works.
 */
import { Type } from "@sinclair/typebox";
import { definePlugin } from "inference-gateway/sdk";

export default definePlugin({
  id: "shout",
  description: "Upper-cases response text (example plugin).",
  optionsSchema: Type.Object({ suffix: Type.Optional(Type.String({ maxLength: 8 })) }, { additionalProperties: false }),
  hooks: {
    post(ctx, response) {
      const suffix = typeof ctx.options.suffix === "string" ? ctx.options.suffix : "";
      for (const part of response.parts) if (part.type === "text") part.text = part.text.toUpperCase() + suffix;
      ctx.report({ summary: "upper-cased the response text" });
      return response;
    },
  },
});
