/**
 * A small seeded generator (mulberry32) for property tests: the seed comes from TEST_SEED when
 * set, so a failing run is repeated exactly by setting the seed it printed.
 */
export function seededRandom(seed: number): { seed: number; int(min: number, max: number): number } {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296;
  };
  return { seed, int: (min, max) => min + Math.floor(next() * (max - min + 1)) };
}

/** The seed of this run: TEST_SEED, or a fresh one. */
export function testSeed(): number {
  const given = Number(process.env.TEST_SEED);
  return Number.isInteger(given) && given > 0 ? given : Math.floor(Math.random() * 2 ** 31) + 1;
}

/** A drawer of names by their shares (which add up to 1), for requests spread over routes. */
export function weightedDraw(
  random: ReturnType<typeof seededRandom>,
  shares: Record<string, number>,
): () => string {
  const names = Object.keys(shares);
  return () => {
    let at = random.int(0, 999) / 1000;
    for (const name of names) if ((at -= shares[name]!) < 0) return name;
    return names.at(-1)!;
  };
}
