// Deterministic pseudo-randomness from (seed, ...numbers): every piece of demo data is a pure
// function of the seed and an id, so nothing of the catalogue needs to be stored.

/** A 32-bit hash of a list of integers (murmur3-style mixing). */
export function hash(...parts: number[]): number {
  let h = 0x811c9dc5 ^ parts.length;
  for (const p of parts) {
    let k = Math.imul(p | 0, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    k = Math.imul(k, 0x1b873593);
    h ^= k;
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
    // high bits of large ids
    const hi = Math.floor(p / 4294967296) | 0;
    if (hi) h ^= Math.imul(hi, 0x85ebca6b);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A float in [0, 1) from (seed, ...parts). */
export function unit(...parts: number[]): number {
  return hash(...parts) / 4294967296;
}

/** An integer in [min, max] from (seed, ...parts). */
export function between(min: number, max: number, ...parts: number[]): number {
  return min + (hash(...parts) % (max - min + 1));
}

export function pick<T>(list: readonly T[], ...parts: number[]): T {
  return list[hash(...parts) % list.length];
}

/** A generator of floats in [0, 1) (mulberry32), for sequences such as embeddings. */
export function stream(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** n lowercase hex characters from (seed, ...parts). */
export function hex(n: number, ...parts: number[]): string {
  let s = '';
  let i = 0;
  while (s.length < n) s += hash(...parts, i++).toString(16).padStart(8, '0');
  return s.slice(0, n);
}
