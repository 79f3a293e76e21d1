/** Deterministic hashing for the simulator: the same prompt always yields the same reply. */

/** 32-bit FNV-1a over the UTF-16 code units of `text` (stable across runs and platforms). */
export function fnv1a(text: string, seed = 0x811c9dc5): number {
  let hash = seed >>> 0;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash >>> 0;
}

/** Eight lowercase hex digits of a 32-bit value, for ids. */
export function hex8(value: number): string {
  return (value >>> 0).toString(16).padStart(8, "0");
}
