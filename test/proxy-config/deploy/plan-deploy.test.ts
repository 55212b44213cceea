import { describe, expect, it } from 'vitest';
import { formatDeployPlan } from '../../../cli/format-deploy.js';
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

  it('on a rollback, gates 5xx by the rise over the release it replaces only, not by the floor', () => {
    const plan = (keepNotJudged: boolean) =>
      planDeploy({
        upstream: 'api',
        pool: { healthCheck, deploy: deploy() },
        instances,
        logDelayMs: 0,
        keepNotJudged,
      });
    expect(plan(false).gates).toMatchObject({
      max5xxIncrease: 0.05,
      max5xxShare: DEFAULTS.deploy.max5xxShare,
    });
    expect(DEFAULTS.deploy.max5xxShare).not.toBeNull();
    expect(plan(true).gates).toMatchObject({ max5xxIncrease: 0.05, max5xxShare: null });
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
    // A watch short of the new instance's requests goes on up to deploy.maxWatch (60 s).
    expect(step('watch').boundMs).toBe(60_000 - 2_000);
    expect(plan.maxMs).toBe(plan.minMs + 2 * (30_000 + 58_000 + 1_500 + 10_000 + EXIT_SLACK_MS));
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

  const hooks = (over: Partial<DeploySpec> = {}): DeploySpec => {
    const { command: _command, ...rest } = deploy();
    return {
      ...rest,
      start: ['systemctl', 'start', 'app@{port}'],
      stop: ['systemctl', 'stop', 'app@{port}'],
      ...over,
    };
  };
  const paired = [
    { host: '10.0.0.7', port: 3001, alternate: { host: '10.0.0.7', port: 3002, failTimeout: 4 } },
    { host: '10.0.0.8', port: 3002, alternate: { host: '10.0.0.8', port: 3001, failTimeout: 4 } },
  ];

  it('takes the alternate path for paired TCP instances: no add or remove step, the exact hook commands, a watch of at least fail_timeout', () => {
    const plan = planDeploy({
      upstream: 'app',
      pool: { healthCheck, deploy: hooks() },
      instances: paired,
      logDelayMs: 0,
    });
    expect(plan.paths).toEqual(['alternate', 'alternate']);
    const round = ['start', 'wait-ready', 'add', 'watch', 'signal', 'wait-exit'];
    expect(plan.steps.map((s) => s.kind)).toEqual([...round, ...round]);
    expect(plan.steps[0]!.title).toContain('at 10.0.0.7:3002: systemctl start app@3002');
    expect(plan.steps[4]!.title).toContain('run the stop hook for 10.0.0.7:3001: systemctl stop app@3001');
    expect(plan.steps[6]!.title).toContain('systemctl start app@3001');
    expect(plan.steps[3]!.waitMs).toBe(4_000);
    expect(plan.steps.some((s) => /validate, swap, reload/.test(s.title))).toBe(false);
    // The watch judges medians, not a p99; no drain mode or stop signal applies to these rounds.
    expect(plan.steps[3]!.title).toContain('its status codes and median request time');
    expect(plan).not.toHaveProperty('drainMode');
    expect(plan).not.toHaveProperty('stopSignal');
    const text = formatDeployPlan(plan);
    expect(text).toContain(
      "drain: the stop hook's own; the deploy measures how long the old instance takes to refuse connections",
    );
    expect(text).not.toContain('interval × threshold');
  });

  it('keeps the reload path for a pair that nothing can stop (hooks without stop) and for unpaired instances', () => {
    const noStop = planDeploy({
      upstream: 'app',
      pool: { healthCheck, deploy: hooks({ stop: undefined }) },
      instances: paired,
      logDelayMs: 0,
    });
    expect(noStop.paths).toEqual(['reload', 'reload']);
    expect(noStop.steps.find((s) => s.kind === 'signal')!.title).toMatch(/no stop hook/);
    // Nothing tells the old instance to drain, and nothing waits for it to leave.
    expect(noStop.steps.find((s) => s.kind === 'signal')!.title).not.toMatch(/drains/);
    expect(noStop.steps.find((s) => s.kind === 'wait-exit')!.title).toMatch(
      /left running \(stop it yourself\)/,
    );
    const unpaired = planDeploy({
      upstream: 'app',
      pool: { healthCheck, deploy: hooks() },
      instances,
      logDelayMs: 0,
    });
    expect(unpaired.paths).toEqual(['reload', 'reload']);
  });

  it('fills {version}, and asks for --version when a hook names it', () => {
    const withVersion = hooks({ start: ['docker', 'run', '-d', 'app:{version}'] });
    expect(() =>
      planDeploy({
        upstream: 'app',
        pool: { healthCheck, deploy: withVersion },
        instances: paired,
        logDelayMs: 0,
      }),
    ).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    const plan = planDeploy({
      upstream: 'app',
      pool: { healthCheck, deploy: withVersion },
      instances: paired,
      logDelayMs: 0,
      version: '1.4.2',
    });
    expect(plan.steps[0]!.title).toContain('docker run -d app:1.4.2');
  });

  it('a hand-over (--replace/--with) has no start step and checks the given instance first', () => {
    const plan = planDeploy({
      upstream: 'app',
      pool: { healthCheck, deploy: hooks() },
      instances: paired.slice(0, 1),
      logDelayMs: 0,
      handOverTo: { host: '10.0.0.7', port: 3002 },
    });
    expect(plan.steps.map((s) => s.kind)).toEqual(['wait-ready', 'add', 'watch', 'signal', 'wait-exit']);
    expect(plan.steps[0]!.title).toContain('check that 10.0.0.7:3002, started by you, is ready');
  });
});
