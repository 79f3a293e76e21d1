/** Money is USD as a float; every amount we compute, show or store is rounded to 1e-12 so float noise never shows. */
export function roundUsd(value: number): number {
  return Math.round(value * 1e12) / 1e12;
}
