import { describe, expect, it } from 'vitest';
import { CONFIRM_IDLE_MS, EXIT_SLACK_MS, planDeploy } from '../../../proxy-config/core/deploy/plan-deploy.js';
import { DEFAULTS } from '../../../proxy-config/core/spec/defaults.js';
import type { DeploySpec } from '../../../proxy-config/core/spec/proxy-spec.js';

const healthCheck = { readinessPath: '/health/ready', interval: 0.5, failureThreshold: 2, margin: 0.5 };
const deploy = (over: Partial<DeploySpec> = {}): DeploySpec => ({
  ...DEFAULTS.deploy,
  command: ['node', 'app.js', '--port', '{port}'],
  watch: 2,
  max5xxIncrease: 0.05,
  ...over,
});
const instances = [
  { host: '127.0.0.1', port: 9001 },
  { host: '127.0.0.1', port: 9002 },
];

describe('planDeploy', () => {
  it('replaces instances one at a time with the reload chain of named steps', () => {
    const plan = planDeploy({
      upstream: 'api',
      pool: { healthCheck, deploy: deploy() },
      instances,
      logDelayMs: 0,
    });
    const round = ['start', 'wait-ready', 'add', 'watch', 'remove', 'confirm-idle', 'signal', 'wait-exit'];
    expect(plan.steps.map((s) => s.kind)).toEqual([...round, ...round]);
    expect(plan.steps.map((s) => s.index)).toEqual(plan.steps.map((_, i) => i + 1));
    expect(plan.steps.filter((s) => s.round === 2).every((s) => s.old.port === 9002)).toBe(true);
  });

  it('computes every wait from the spec before anything runs', () => {
    const plan = planDeploy({
      upstream: 'api',
      pool: { healthCheck, deploy: deploy() },
      instances,
      logDelayMs: 0,
    });
    expect(plan.drain.waitMs).toBe(1_500);
    const step = (kind: string) => plan.steps.find((s) => s.kind === kind)!;
    expect(step('wait-ready').boundMs).toBe(30_000);
    expect(step('watch').waitMs).toBe(2_000);
    expect(step('confirm-idle').waitMs).toBe(CONFIRM_IDLE_MS);
    expect(step('wait-exit').boundMs).toBe(1_500 + 10_000 + EXIT_SLACK_MS);
    expect(plan.minMs).toBe(2 * (2_000 + CONFIRM_IDLE_MS));
    expect(plan.maxMs).toBe(plan.minMs + 2 * (30_000 + 1_500 + 10_000 + EXIT_SLACK_MS));
  });

  it('in health-check mode signals first and waits interval × threshold while the old instance serves', () => {
    const plan = planDeploy({
      upstream: 'api',
      pool: { healthCheck, deploy: deploy({ drainMode: 'health-check' }) },
      instances: instances.slice(0, 1),
      logDelayMs: 0,
    });
    expect(plan.steps.map((s) => s.kind)).toEqual([
      'start',
      'wait-ready',
      'add',
      'watch',
      'signal',
      'drain-detect',
      'remove',
      'confirm-idle',
      'wait-exit',
    ]);
    expect(plan.steps.find((s) => s.kind === 'drain-detect')!.waitMs).toBe(1_000);
    expect(plan.steps.find((s) => s.kind === 'confirm-idle')!.waitMs).toBe(CONFIRM_IDLE_MS);
  });

  it('widens log windows by a buffered access log flush, and skips the watch at 0 s', () => {
    const plan = planDeploy({
      upstream: 'api',
      pool: { healthCheck, deploy: deploy({ watch: 0 }) },
      instances: instances.slice(0, 1),
      logDelayMs: 5_000,
    });
    expect(plan.steps.some((s) => s.kind === 'watch')).toBe(false);
    expect(plan.steps.find((s) => s.kind === 'confirm-idle')!.waitMs).toBe(CONFIRM_IDLE_MS + 5_000);
  });

  it('refuses a pool without a deploy section or without instances (bad input)', () => {
    expect(() => planDeploy({ upstream: 'api', pool: { healthCheck }, instances, logDelayMs: 0 })).toThrow(
      expect.objectContaining({ code: 'SPEC_INVALID' }),
    );
    expect(() =>
      planDeploy({ upstream: 'api', pool: { healthCheck, deploy: deploy() }, instances: [], logDelayMs: 0 }),
    ).toThrow(expect.objectContaining({ code: 'SPEC_INVALID' }));
  });
});
