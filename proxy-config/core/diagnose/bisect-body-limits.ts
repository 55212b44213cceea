import type { BodyLimitLayer } from './evidence.js';

/** How one layer answered a body of a given size. */
export interface BodyAnswer {
  status: number;
  server: string | null;
  nginxPage: boolean;
}

/** Bounds of the search: the largest body tried and the most requests spent. */
export interface BisectBounds {
  maxBytes: number;
  maxRequests: number;
}

/** The name a 413 answer gets: its Server header and whether nginx wrote the page. */
export function toLayerName(answer: BodyAnswer): string {
  const server = answer.server ?? 'no Server header';
  return answer.nginxPage ? `${server} (nginx error page)` : `${server} (passed-through page)`;
}

const MAX_RETRIES = 2;

function isAmbiguous(answer: BodyAnswer): boolean {
  return answer.status === 0 || answer.status >= 500;
}

function rejectedBy(answer: BodyAnswer): string | null {
  return answer.status === 413 ? toLayerName(answer) : null;
}

/**
 * Finds the body size at which each layer starts answering 413, by bisection on the layer that
 * answers: first the lowest limit, then each change of answering layer up to `maxBytes`.
 * `ask(size)` sends one request with a body of `size` bytes; status 0 stands for no answer.
 */
export async function bisectBodyLimits(
  ask: (size: number) => Promise<BodyAnswer>,
  bounds: BisectBounds,
): Promise<{ layers: BodyLimitLayer[]; requests: number }> {
  let requests = 0;
  const cache = new Map<number, BodyAnswer>();
  const askOnce = async (size: number) => {
    const known = cache.get(size);
    if (known) return known;
    requests++;
    let answer = await ask(size);
    // A layer that answers before reading the body may reset the connection (5xx, or no answer at
    // all, status 0): that says nothing about limits, so ask again while the budget allows.
    for (
      let retry = 0;
      retry < MAX_RETRIES && isAmbiguous(answer) && requests < bounds.maxRequests;
      retry++
    ) {
      requests++;
      answer = await ask(size);
    }
    cache.set(size, answer);
    return answer;
  };

  const atMax = await askOnce(bounds.maxBytes);
  const layers: BodyLimitLayer[] = [];
  if (!rejectedBy(atMax)) return { layers, requests };

  // Invariant: the answer at `lo` is not `current`'s layer (or below every limit), the answer at `hi` differs from it.
  let current: string | null = null;
  let lo = 0;
  while (requests < bounds.maxRequests) {
    let hi = bounds.maxBytes;
    const differs = (answer: BodyAnswer) => rejectedBy(answer) !== current;
    while (hi - lo > 1 && requests < bounds.maxRequests) {
      const mid = Math.floor((lo + hi) / 2);
      if (differs(await askOnce(mid))) hi = mid;
      else lo = mid;
    }
    const answer = await askOnce(hi);
    const name = rejectedBy(answer);
    if (name === null || name === current) break;
    layers.push({ layer: name, server: answer.server, nginxPage: answer.nginxPage, firstRejected: hi });
    current = name;
    lo = hi;
    if (rejectedBy(atMax) === current) break;
  }
  return { layers, requests };
}
