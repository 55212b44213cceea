import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { APPS, loadThroughBoth, startFleet, storedCount, WEB, type Fleet } from './fleet-harness.js';

let fleet: Fleet;

beforeAll(async () => {
  fleet = await startFleet();
}, 180_000);

afterAll(async () => {
  await fleet?.hosts.teardown();
}, 60_000);

describe('deploy across hosts: two nginx hosts in front of two app hosts, over ssh', () => {
  it('rolls every app host under a load that never retries through both nginx hosts: 0 failed, every 2xx POST stored', async () => {
    const { pair, address } = fleet;
    const load = loadThroughBoth(fleet);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    const run = await fleet.proxyops(
      'deploy',
      '--spec',
      fleet.specPath,
      '--dir',
      `${fleet.hosts.root}/here`,
      '--json',
    );
    const results = await load.stop();
    expect(run.code, run.stdout + run.stderr).toBe(0);
    const events = run.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    // Per-host progress: each round's steps carry the app host they run on.
    const starts = events.filter((e) => e.type === 'step-start');
    expect(new Set(starts.map((e) => e.host))).toEqual(new Set(APPS));
    for (const result of results) {
      const summary = JSON.stringify({ ...result, createdIds: result.createdIds.length });
      expect(result.get, summary).toMatchObject({ errors: 0, non2xx: 0 });
      expect(result.post, summary).toMatchObject({ errors: 0 });
      // The alternate path's open residual (docs/deploys.md): a POST meeting a listener that closes.
      expect(result.post.non2xx, summary).toBeLessThanOrEqual(1);
      expect(result.get.total).toBeGreaterThan(100);
      expect(result.post.total).toBeGreaterThan(50);
      expect(await storedCount(result.createdIds)).toBe(result.createdIds.length);
    }
    // Both nginx hosts record the same instances: every app host on the other address of its pair.
    const moved = APPS.map((name) => `${address(name)}:${pair[1]}`).sort();
    for (const web of WEB) expect(await fleet.recorded(web)).toEqual(moved);
  }, 240_000);
});
