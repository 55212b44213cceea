import { describe, expect, it } from 'vitest';
import { parseBatchOption, planBatches } from '../../../proxy-config/core/deploy/plan-batches.js';

const rounds = (hosts: string[]) => hosts.map((host, i) => ({ round: i + 1, host }));

describe('planBatches', () => {
  it('runs one round at a time by default', () => {
    expect(planBatches(rounds(['a', 'b', 'c']))).toEqual([[1], [2], [3]]);
  });

  it('groups N rounds, the last batch holding the rest', () => {
    expect(planBatches(rounds(['a', 'b', 'c', 'd', 'e']), { batch: { count: 2 } })).toEqual([
      [1, 2],
      [3, 4],
      [5],
    ]);
  });

  it('takes a share of every round, rounded up, never an empty batch', () => {
    expect(planBatches(rounds(['a', 'b', 'c', 'd', 'e']), { batch: { percent: 40 } })).toEqual([
      [1, 2],
      [3, 4],
      [5],
    ]);
    expect(planBatches(rounds(['a', 'b', 'c']), { batch: { percent: 1 } })).toEqual([[1], [2], [3]]);
    expect(planBatches(rounds(['a', 'b', 'c']), { batch: { percent: 100 } })).toEqual([[1, 2, 3]]);
  });

  it('with a canary, the first host alone first (all its rounds), then the batches', () => {
    expect(planBatches(rounds(['a', 'b', 'a', 'c', 'd']), { batch: { count: 2 }, canary: true })).toEqual([
      [1, 3],
      [2, 4],
      [5],
    ]);
    expect(planBatches(rounds(['a', 'b']), { canary: true })).toEqual([[1], [2]]);
    const local = [{ round: 1 }, { round: 2 }, { round: 3 }];
    expect(planBatches(local, { batch: { count: 2 }, canary: true })).toEqual([[1], [2, 3]]);
  });

  it('has no batch for no round', () => {
    expect(planBatches([], { canary: true })).toEqual([]);
  });
});

describe('parseBatchOption', () => {
  it('reads a count or a share', () => {
    expect(parseBatchOption('3')).toEqual({ count: 3 });
    expect(parseBatchOption('25%')).toEqual({ percent: 25 });
  });

  it.each(['0', '-1', '1.5', '101%', '0%', 'two', ''])('refuses %j in one line naming the flag', (text) => {
    expect(() => parseBatchOption(text)).toThrow(/^--batch .* must be a number of instances/);
  });
});
