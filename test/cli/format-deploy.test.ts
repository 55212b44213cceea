import { describe, expect, it } from 'vitest';
import { formatDeployEvent, formatDeployPlan } from '../../cli/format-deploy.js';
import { planDeploy } from '../../proxy-config/core/deploy/plan-deploy.js';
import { DEFAULTS } from '../../proxy-config/core/spec/defaults.js';

const plan = planDeploy({
  upstream: 'api',
  pool: {
    healthCheck: { readinessPath: '/health/ready', interval: 5, failureThreshold: 3, margin: 5 },
    deploy: { ...DEFAULTS.deploy, command: ['app', '--port', '{port}'], max5xxIncrease: 0.05 },
  },
  instances: [{ host: '127.0.0.1', port: 8080 }],
  logDelayMs: 0,
});

describe('deploy progress for people', () => {
  it('prints the drain arithmetic and every step with its computed wait', () => {
    const text = formatDeployPlan(plan);
    expect(text).toContain('drain wait = interval × threshold 15 s + margin 5 s = 20 s');
    expect(text).toMatch(/ 2\. \[1\/1\] wait-ready: .*\[at most 30 s\]/);
    expect(text).toMatch(/ 4\. \[1\/1\] watch: .*roll back above \+5\.0 points of 5xx.*\[wait 5 s\]/);
    expect(text).toMatch(/ 8\. \[1\/1\] wait-exit: .*after 20 s.*\[at most 31 s\]/);
    expect(text.trim().split('\n')).toHaveLength(3 + plan.steps.length + 1);
  });

  it('counts waits down and says how it ended', () => {
    expect(formatDeployEvent({ type: 'countdown', step: 8, remainingMs: 12_340 })).toBe(
      '    … 12.4 s left\n',
    );
    expect(
      formatDeployEvent({
        type: 'drain',
        step: 8,
        address: '127.0.0.1:8080',
        computedMs: 20_000,
        measuredMs: 20_012,
      }),
    ).toBe('    drain: computed 20 s, measured 20.012 s\n');
    expect(
      formatDeployEvent({ type: 'abort', step: 4, reason: 'the 5xx share rose', rolledBack: true }),
    ).toBe('✗ aborted at step 4: the 5xx share rose (config rolled back)\n');
  });
});
