/** Async-iterable helpers shared by the unit tests: replay a fixed list as a stream, drain a stream into a list. */

/** Replays a fixed list as an async stream. */
export async function* replay<T>(items: readonly T[]): AsyncGenerator<T> {
  for (const item of items) yield item;
}

/** Drains an async iterable into an array. */
export async function drain<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of items) out.push(item);
  return out;
}
