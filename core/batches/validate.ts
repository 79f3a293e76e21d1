/**
 * Submission validation: every request is checked up front and EVERY invalid one is reported in a
 * single 400 (`metadata.errors: [{index, custom_id, message}]`); nothing is stored unless all are valid, so no
 * request is silently dropped and a client fixes its whole file in one round trip.
 */
import { Slices } from "../model/slices.ts";
import { TypeCompiler, type TypeCheck } from "@sinclair/typebox/compiler";
import type { TSchema } from "@sinclair/typebox";
import type { Principal } from "../auth/principal.ts";
import { requestedModels } from "../pipeline/turn/route.ts";
import { checkStorableText, isStorableText } from "../store/text.ts";
import type { Deps } from "../deps.ts";
import { errors, isGatewayError } from "../errors.ts";
import { mostSpecific } from "../http/edge-errors.ts";
import { isChatFormat, type WireFormat } from "../formats/format.ts";
import type { CanonicalRequest } from "../model/request.ts";
import type { Json } from "../presets/json.ts";
import { mergePresets } from "../presets/merge.ts";

/** One request as submitted. */
export interface SubmittedRequest {
  custom_id: string;
  body: Json;
}

/** One invalid request. */
export interface RequestProblem {
  index: number;
  custom_id: string;
  message: string;
}

/** How many problems the 400's message spells out (all of them are in `metadata.errors`). */
const IN_MESSAGE = 10;

const checks = new WeakMap<TSchema, TypeCheck<TSchema>>();

/** The format's body schema, compiled once (the same schema the live endpoint validates with). */
function checkerOf(format: WireFormat): TypeCheck<TSchema> {
  let check = checks.get(format.schema);
  if (!check) {
    check = TypeCompiler.Compile(format.schema);
    checks.set(format.schema, check);
  }
  return check;
}

/**
 * Validates every request and returns the bodies to store (batch model filled in, presets resolved), or throws one
 * 400 listing every problem.
 */
export async function validateRequests(deps: Pick<Deps, "store">, principal: Principal, format: WireFormat, model: string | undefined, requests: readonly SubmittedRequest[]): Promise<Json[]> {
  const problems: RequestProblem[] = [];
  const seen = new Map<string, number>();
  const bodies: Json[] = [];
  // Thousands of bodies are checked on the event loop: give it back every slice so /health and other keys are served.
  const slices = new Slices();
  for (const [index, request] of requests.entries()) {
    await slices.next();
    const report = (message: string) => problems.push({ index, custom_id: request.custom_id, message });
    const first = seen.get(request.custom_id);
    // custom_id and model are stored as text (core/store/text.ts).
    if (!isStorableText(request.custom_id)) report("custom_id: must not contain U+0000 (NUL)");
    if (first !== undefined) report(`duplicate custom_id (first used by request ${first})`);
    else seen.set(request.custom_id, index);
    try {
      bodies.push(await validateBody(deps, principal, format, model, request.body));
    } catch (error) {
      if (!isGatewayError(error) || error.status >= 500) throw error;
      report(error.message);
    }
  }
  if (problems.length > 0) {
    const listed = problems.slice(0, IN_MESSAGE).map((p) => `${p.custom_id}: ${p.message}`).join("; ");
    const more = problems.length > IN_MESSAGE ? `; and ${problems.length - IN_MESSAGE} more (see error.metadata.errors)` : "";
    throw errors.invalid(`Invalid batch: ${problems.length} of ${requests.length} requests are invalid: ${listed}${more}`, { errors: problems });
  }
  return bodies;
}

/** One body: batch model rule, presets, the format's schema and decode rules, non-streaming and text-only. */
async function validateBody(deps: Pick<Deps, "store">, principal: Principal, format: WireFormat, model: string | undefined, raw: Json): Promise<Json> {
  const body: Json = { ...raw };
  if (model !== undefined) {
    if (body.model === undefined) body.model = model;
    else if (body.model !== model) throw errors.invalid(`body model "${String(body.model)}" differs from the batch model "${model}"`);
  }
  if (body.stream === true) throw errors.invalid("stream: true is not supported in a batch");
  checkStorableText(typeof body.model === "string" ? body.model : undefined, "model");
  // Presets are chat bodies: an embeddings item names none.
  if (isChatFormat(format.id)) await mergePresets(deps.store.presets, principal.workspaceId, format.id, body);
  const check = checkerOf(format);
  if (!check.Check(body)) {
    // A union failure ("Expected union value") is narrowed to its real cause, as the live endpoints do.
    const first = mostSpecific(check.Errors(body).First());
    const field = first?.path ? first.path.slice(1).replaceAll("/", ".") : "(body)";
    throw errors.invalid(`${field}: ${first?.message ?? "does not match the schema"}`);
  }
  const decoded = format.decode(body, new Headers());
  // A request naming no model could only fail when it runs: refused now, with the rule the pipeline applies.
  requestedModels(decoded);
  assertTextOnly(decoded);
  return body;
}

/** Batches are text-only: images and files are refused at submission. */
function assertTextOnly(request: CanonicalRequest): void {
  for (const message of request.messages) {
    for (const part of message.parts) {
      const rich = part.type === "image" || part.type === "file" || (part.type === "tool-result" && Array.isArray(part.content) && part.content.some((c) => c.type === "image"));
      if (rich) throw errors.invalid(`batch requests are text-only: ${part.type} content is not accepted`);
    }
  }
}
