import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getOnce, startAnswerLoad } from '../../support/answer-load.js';
import {
  adminToken,
  runCli,
  SEED_USER,
  stackPids,
  startStack,
  stopStack,
  type StackProcess,
} from '../deploy/stack-harness.js';

describe('proxyops maintenance on a running `proxyops up` stack, through its nginx, under load', () => {
  let stack: StackProcess;
  let port: number;
  let auth: Record<string, string>;

  beforeAll(async () => {
    stack = await startStack(['--instances', '2']);
    port = Number(new URL(stack.url).port);
    auth = { authorization: `Bearer ${await adminToken()}`, accept: 'application/json' };
  }, 120_000);
  afterAll(async () => {
    await stopStack(stack);
  }, 60_000);

  it('on: every answer a 503 problem+json with Retry-After and its request id, /health/* still 200 from the instances; off: 0 failed; no reload', async () => {
    const pidsBefore = await stackPids(stack);
    const load = startAnswerLoad(port, 6, { path: () => `/users/${SEED_USER}`, headers: auth });
    await sleep(400);
    const on = await runCli([
      'maintenance',
      'on',
      '--upstream',
      'api',
      '--retry-after',
      '90',
      '--dir',
      stack.dir,
    ]);
    expect(on.exitCode, on.stderr).toBe(0);
    const onAt = performance.now();
    await sleep(800);
    const ready = await getOnce(port, '/health/ready');
    const live = await getOnce(port, '/health/live');
    const offStart = performance.now();
    const off = await runCli(['maintenance', 'off', '--upstream', 'api', '--dir', stack.dir]);
    expect(off.exitCode, off.stderr).toBe(0);
    const offAt = performance.now();
    await sleep(800);
    const { answers, errors } = await load.stop();

    // Nothing failed, before, during or after; nothing but the instances' 200s and nginx's 503s.
    expect(errors).toEqual([]);
    expect(new Set(answers.map((a) => a.status))).toEqual(new Set([200, 503]));
    const during = answers.filter((a) => a.sentAt > onAt && a.endedAt < offStart);
    const after = answers.filter((a) => a.sentAt > offAt);
    expect(during.length).toBeGreaterThan(20);
    expect(after.length).toBeGreaterThan(20);
    for (const a of during) {
      expect(a.status).toBe(503);
      expect(a.headers['content-type']).toBe('application/problem+json');
      expect(a.headers['retry-after']).toBe('90');
      const problem = JSON.parse(a.body) as Record<string, unknown>;
      expect(problem).toMatchObject({ status: 503, code: 'MAINTENANCE', instance: `/users/${SEED_USER}` });
      expect(problem.requestId).toBe(a.headers['x-request-id']);
      expect(problem.requestId).toMatch(/\S/);
    }
    expect(after.every((a) => a.status === 200)).toBe(true);
    // The health paths reached the instances: their own answers, not nginx's 503.
    expect(ready.status).toBe(200);
    expect(JSON.parse(ready.body)).toMatchObject({ status: 'ready' });
    expect(live.status).toBe(200);
    // No reload, no restart: the supervisor, nginx's master and workers and the instances are the same.
    expect(await stackPids(stack)).toEqual(pidsBefore);
  }, 120_000);
});
