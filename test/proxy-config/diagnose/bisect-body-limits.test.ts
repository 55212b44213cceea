import { describe, expect, it } from 'vitest';
import { bisectBodyLimits, type BodyAnswer } from '../../../proxy-config/core/diagnose/bisect-body-limits.js';

/** A chain of layers, outermost first: the first whose limit a body exceeds answers 413. */
function chain(layers: Array<{ server: string; nginxPage: boolean; limit: number }>) {
  const sizes: number[] = [];
  const ask = async (size: number): Promise<BodyAnswer> => {
    sizes.push(size);
    const layer = layers.find((candidate) => size > candidate.limit);
    return layer
      ? { status: 413, server: layer.server, nginxPage: layer.nginxPage }
      : { status: 200, server: 'nginx', nginxPage: false };
  };
  return { ask, sizes };
}

describe('bisectBodyLimits', () => {
  it('finds the exact size at which the lowest layer starts answering 413', async () => {
    const { ask } = chain([{ server: 'nginx/1.22.1', nginxPage: true, limit: 1024 }]);
    const result = await bisectBodyLimits(ask, { maxBytes: 8 * 1024 * 1024, maxRequests: 60 });
    expect(result.layers).toEqual([
      {
        layer: 'nginx/1.22.1 (nginx error page)',
        server: 'nginx/1.22.1',
        nginxPage: true,
        firstRejected: 1025,
      },
    ]);
    expect(result.requests).toBeLessThanOrEqual(25);
  });

  it('finds each layer when an inner layer has the lower limit', async () => {
    const { ask } = chain([
      { server: 'nginx', nginxPage: true, limit: 1_000_000 },
      { server: 'nginx', nginxPage: false, limit: 2048 },
    ]);
    const result = await bisectBodyLimits(ask, { maxBytes: 4_000_000, maxRequests: 60 });
    expect(result.layers.map((layer) => [layer.layer, layer.firstRejected])).toEqual([
      ['nginx (passed-through page)', 2049],
      ['nginx (nginx error page)', 1_000_001],
    ]);
  });

  it('stays within its request budget and reports nothing when no layer rejects', async () => {
    const open = chain([]);
    expect(await bisectBodyLimits(open.ask, { maxBytes: 1 << 20, maxRequests: 60 })).toEqual({
      layers: [],
      requests: 1,
    });
    const tight = chain([{ server: 'edge', nginxPage: false, limit: 777 }]);
    const result = await bisectBodyLimits(tight.ask, { maxBytes: 1 << 30, maxRequests: 10 });
    expect(tight.sizes.length).toBeLessThanOrEqual(11);
    expect(result.requests).toBe(tight.sizes.length);
  });
});

describe('bisectBodyLimits with a flaky layer', () => {
  it('asks again when a request gets no answer or a 5xx instead of trusting it', async () => {
    let calls = 0;
    const ask = async (size: number): Promise<BodyAnswer> => {
      calls++;
      // Every second request is cut off, as when an application answers before reading the body.
      if (calls % 2 === 0) return { status: calls % 4 === 0 ? 0 : 502, server: null, nginxPage: false };
      return size > 2048
        ? { status: 413, server: 'nginx', nginxPage: false }
        : { status: 201, server: 'nginx', nginxPage: false };
    };
    const result = await bisectBodyLimits(ask, { maxBytes: 1 << 20, maxRequests: 60 });
    expect(result.layers.map((layer) => layer.firstRejected)).toEqual([2049]);
    expect(result.requests).toBe(calls);
  });
});
