/**
 * Span shapes: everything of a span that repeats from request to request (its name and the attributes whose values
 * come from closed sets: route, format, status, model, provider, outcome, finish reason, key name), encoded once per
 * combination of those values and copied into each span as one block. Only ids, times, token counts, cost and ids
 * of the request are written per span.
 *
 * Why: building a request's spans from per-attribute caches touched ~30 small cached byte arrays and twice as many map
 * entries. Between two requests' builds the rest of the request path evicts them, so in the running gateway each
 * span cost ~3× what a loop over the same requests measured (8 µs a request against 3; a loop that scrubs the caches
 * between builds reproduces the 3×). A shape is one lookup and one copy.
 *
 * A shape's key joins its values with a separator that the values cannot hold (`keyable`: values chosen by a client
 * or an operator are checked; values from closed sets never contain it). The protobuf field order does not matter
 * to a decoder, so a shape's name (Span field 5) may follow the attributes (field 9) of the header it is copied after.
 */

/** Joins the values of a shape's key. */
export const SEP = "\u0001";
/** Stands for an absent value in a shape's key. */
export const NONE = "\u0002";

/** At most this many shapes per cache; emptied when full (so ever-new values only ever get the uncached path). */
const MAX_SHAPES = 1024;
/** Client-chosen values longer than this are not cached (a shape key is no place for a prompt-sized value). */
const MAX_KEYABLE = 256;

export class ShapeCache {
  private readonly shapes = new Map<string, Uint8Array>();

  get(key: string): Uint8Array | undefined {
    return this.shapes.get(key);
  }

  keep(key: string, shape: Uint8Array): Uint8Array {
    if (this.shapes.size >= MAX_SHAPES) this.shapes.clear();
    this.shapes.set(key, shape);
    return shape;
  }
}

/** Whether a value chosen outside the gateway (a model string, a key name) can be part of a shape's key. */
export function keyable(value: string | undefined): boolean {
  return value === undefined || (value.length <= MAX_KEYABLE && !value.includes(SEP) && !value.includes(NONE));
}
