import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  checkStopSetups,
  readStopSetups,
} from '../../../proxy-config/core/deploy-check/check-stop-setups.js';
import { DEPLOY_CHECK_RULES } from '../../../proxy-config/core/deploy-check/deploy-check-rules.js';
import { parseDurationMs } from '../../../proxy-config/core/deploy-check/parse-durations.js';
import { preStopSleepMs } from '../../../proxy-config/core/deploy-check/read-kubernetes.js';
import { runCli } from '../../support/run-cli.js';

const fixtures = join(import.meta.dirname, 'fixtures');
const fixture = (name: string) => join(fixtures, name);
const OPTIONS = { healthCheck: { interval: 5, failureThreshold: 3, margin: 5 }, finishSeconds: 10 };

function check(name: string, text = readFileSync(fixture(name), 'utf8')) {
  return checkStopSetups([{ file: name, read: readStopSetups(name, text) }], OPTIONS);
}

describe('deploy check rules', () => {
  it('keeps its rule ids stable', () => {
    expect(DEPLOY_CHECK_RULES.map((r) => r.id)).toEqual([
      'prestop-sleep-missing',
      'prestop-sleep-too-short',
      'prestop-length-unknown',
      'stop-timeout-before-drain',
      'stop-timeout-leaves-no-finish',
      'stop-signal-not-graceful',
      'container-stop-signal',
      'readiness-probe-missing',
    ]);
  });

  it('finds the classic preStop race with the computed numbers, and notes the kinds it passes over', () => {
    const report = check('prestop-race.yaml');
    expect(report.findings.map((f) => [f.ruleId, f.line])).toEqual([['prestop-sleep-too-short', 53]]);
    const [race] = report.findings;
    expect(race!.numbers).toEqual({
      preStopSleepMs: 5000,
      drainMs: 35_000,
      detectMs: 30_000,
      marginMs: 5000,
      shortByMs: 30_000,
    });
    expect(race!.what).toContain(
      'preStop sleeps 5 s, 30 s short of periodSeconds 10 s × failureThreshold 3 + margin 5 s = 35 s',
    );
    expect(report.notes).toEqual([
      expect.stringContaining('document 1 (kind Service orders-api) ignored'),
      expect.stringContaining('document 3 (kind HorizontalPodAutoscaler orders-api) ignored'),
    ]);
  });

  it('passes a StatefulSet whose preStop sleep and grace period cover the drain', () => {
    // periodSeconds 5 × failureThreshold 2 + margin 5 = 15 s ≤ sleep 20 s; grace 60 s leaves 40 s.
    expect(check('statefulset-good.yaml').findings).toEqual([]);
  });

  it('reads the grace period against the sleep, and a container without preStop', () => {
    const text = readFileSync(fixture('statefulset-good.yaml'), 'utf8');
    const late = check(
      'late.yaml',
      text.replace('terminationGracePeriodSeconds: 60', 'terminationGracePeriodSeconds: 25'),
    );
    expect(late.findings.map((f) => [f.ruleId, f.numbers])).toEqual([
      [
        'stop-timeout-leaves-no-finish',
        { stopTimeoutMs: 25_000, servesUntilMs: 20_000, leftMs: 5000, finishMs: 10_000 },
      ],
    ]);
    const none = check('none.yaml', text.replace(/ {10}lifecycle:\n.*\n.*\n.*seconds: 20\n/, ''));
    expect(none.findings.map((f) => [f.ruleId, f.numbers.drainMs])).toEqual([
      ['prestop-sleep-missing', 15_000],
    ]);
  });

  it('reads a systemd unit: TimeoutStopSec against the drain of the options, KillSignal', () => {
    const report = check('app@.service');
    expect(report.findings.map((f) => [f.ruleId, f.line, f.numbers])).toEqual([
      ['stop-timeout-before-drain', 13, { stopTimeoutMs: 10_000, servesUntilMs: 20_000, drainMs: 20_000 }],
    ]);
    const killed = check(
      'k.service',
      '[Service]\nExecStart=/bin/app\nKillSignal=9\nTimeoutStopSec=1min 30s\n',
    );
    expect(killed.findings.map((f) => f.ruleId)).toEqual(['stop-signal-not-graceful']);
    expect(check('i.service', '[Service]\nExecStart=/bin/app\nTimeoutSec=infinity\n').findings).toEqual([]);
  });

  it('reads a compose file: stop_grace_period against healthcheck interval × retries, stop_signal', () => {
    const report = check('compose.yaml');
    expect(report.findings.map((f) => [f.ruleId, f.line, f.numbers])).toEqual([
      ['stop-timeout-before-drain', 3, { stopTimeoutMs: 10_000, servesUntilMs: 35_000, drainMs: 35_000 }],
      ['container-stop-signal', 3, {}],
    ]);
    expect(report.findings[0]!.what).toContain('healthcheck interval 10 s × retries 3 + margin 5 s = 35 s');
  });

  it('judges only the compose services a balancer sends to: not a worker, not postgres or redis', () => {
    const report = check('compose-stack.yaml');
    // app: healthcheck 5 s × 3 + margin 5 s = 20 s against the default stop_grace_period 10 s;
    // nginx publishes ports: the options' 5 s × 3 + 5 s = 20 s, its 30 s leave the 10 s to finish.
    expect(report.findings.map((f) => [f.ruleId, f.what.split(':')[0]])).toEqual([
      ['stop-timeout-before-drain', 'service app'],
      ['container-stop-signal', 'service app'],
    ]);
    expect(report.notes).toEqual([
      expect.stringContaining(
        'service worker not checked against the drain: no ports, expose or healthcheck',
      ),
      expect.stringContaining('service db (image postgres:16) not checked against the drain: a database'),
      expect.stringContaining('service redis (image redis:7-alpine) not checked against the drain'),
    ]);
    // A stop signal that cannot be caught is still an error on any service.
    const text = readFileSync(fixture('compose-stack.yaml'), 'utf8');
    const killed = check(
      'k.yaml',
      text.replace('POSTGRES_PASSWORD: shop', 'POSTGRES_PASSWORD: shop\n    stop_signal: SIGKILL'),
    );
    expect(killed.findings.map((f) => [f.ruleId, f.what])).toContainEqual([
      'stop-signal-not-graceful',
      'service db: stop_signal=SIGKILL',
    ]);
  });

  it('refuses a field that is not a number, naming it, and never computes NaN', () => {
    const text = readFileSync(fixture('statefulset-good.yaml'), 'utf8');
    expect(() => check('p.yaml', text.replace('periodSeconds: 5', 'periodSeconds: 5s'))).toThrow(
      /^p\.yaml:\d+: readinessProbe\.periodSeconds is "5s", not a whole number of at least 1$/,
    );
    expect(() =>
      check(
        'g.yaml',
        text.replace('terminationGracePeriodSeconds: 60', 'terminationGracePeriodSeconds: {a: 1}'),
      ),
    ).toThrow(/^g\.yaml:\d+: terminationGracePeriodSeconds is .*not a whole number/);
    const compose = readFileSync(fixture('compose.yaml'), 'utf8');
    expect(() => check('c.yaml', compose.replace('retries: 3', 'retries: three'))).toThrow(
      /^c\.yaml:11: retries "three" is not a whole number of at least 1$/,
    );
    expect(() => check('i.yaml', compose.replace('interval: 10s', 'interval: {a: 1}'))).toThrow(
      /^i\.yaml:9: interval \{"a":1\} is not a duration/,
    );
  });

  it('lets no YAML library warning through (a mapping used as a key)', () => {
    const warn = vi.spyOn(process, 'emitWarning');
    try {
      const text = readFileSync(fixture('statefulset-good.yaml'), 'utf8');
      const odd = text.replace(/^kind: StatefulSet$/m, 'kind: StatefulSet\n? {odd: key}\n: value');
      expect(odd).not.toBe(text);
      expect(check('o.yaml', odd).findings).toEqual([]);
      expect(warn).not.toHaveBeenCalled();
    } finally {
      warn.mockRestore();
    }
  });

  it('takes a quoted {{.Name}} (a compose logging tag) as text, not as a template', () => {
    const compose = readFileSync(fixture('compose.yaml'), 'utf8');
    const tagged = compose.replace(
      '    restart: unless-stopped\n',
      "    restart: unless-stopped\n    logging:\n      options:\n        tag: '{{.Name}}/{{.ID}}'\n",
    );
    expect(check('t.yaml', tagged).findings.map((f) => f.ruleId)).toEqual([
      'stop-timeout-before-drain',
      'container-stop-signal',
    ]);
  });

  it('reads the preStop forms found in the wild', () => {
    expect(preStopSleepMs({ exec: { command: ['sleep', '15'] } })).toBe(15_000);
    expect(preStopSleepMs({ exec: { command: ['/bin/sleep', '1m'] } })).toBe(60_000);
    expect(preStopSleepMs({ sleep: { seconds: 7 } })).toBe(7000);
    expect(
      preStopSleepMs({ exec: { command: ['/bin/sh', '-c', 'sleep 5\nkill -SIGTERM 1\nsleep 25'] } }),
    ).toBe(5000);
    expect(preStopSleepMs({ exec: { command: ['sh', '-c', 'sleep 10 && nginx -s quit'] } })).toBe(10_000);
    // The sleep 1 of the wait loop comes after nginx is told to quit: it does not hold the stop back.
    const quitThenWait = 'sleep 5 && nginx -s quit && while pgrep -x nginx; do sleep 1; done';
    expect(preStopSleepMs({ exec: { command: ['sh', '-c', quitThenWait] } })).toBe(5000);
    expect(
      preStopSleepMs({ exec: { command: ['sh', '-c', 'echo draining; sleep 3; sleep 2s; kill 1'] } }),
    ).toBe(5000);
    expect(preStopSleepMs({ exec: { command: ['sh', '-c', 'nginx -s quit; sleep 10'] } })).toBeNull();
    expect(preStopSleepMs({ httpGet: { path: '/shutdown', port: 8080 } })).toBeNull();
    expect(preStopSleepMs(undefined)).toBeUndefined();
    expect(parseDurationMs('1m30s')).toBe(90_000);
    expect(parseDurationMs('1min 30s')).toBe(90_000);
    expect(parseDurationMs('500ms')).toBe(500);
    expect(parseDurationMs('ten')).toBeUndefined();
  });
});

describe('proxyops deploy check', () => {
  it('exits 1 on an error finding, 0 without, and prints the numbers', async () => {
    const race = await runCli([
      'deploy',
      'check',
      fixture('prestop-race.yaml'),
      fixture('app@.service'),
      fixture('compose.yaml'),
    ]);
    expect(race.code).toBe(1);
    expect(race.stdout).toContain('prestop-sleep-too-short');
    expect(race.stdout).toContain('3 errors, 1 warning in 3 files');
    const good = await runCli(['deploy', 'check', fixture('statefulset-good.yaml')]);
    expect(good).toMatchObject({ code: 0, stderr: '' });
  });

  it('--json carries the findings with their numbers, the notes and ok', async () => {
    const out = await runCli(['deploy', 'check', '--json', fixture('prestop-race.yaml')]);
    expect(out.code).toBe(1);
    const doc = JSON.parse(out.stdout) as {
      ok: boolean;
      findings: { ruleId: string; numbers: object }[];
      notes: string[];
    };
    expect(doc.ok).toBe(false);
    expect(doc.findings[0]).toMatchObject({
      ruleId: 'prestop-sleep-too-short',
      numbers: { drainMs: 35_000 },
    });
    expect(doc.notes).toHaveLength(2);
  });

  it('--interval/--threshold/--margin set the drain where a file declares no readiness check', async () => {
    const out = await runCli([
      'deploy',
      'check',
      '--interval',
      '1',
      '--threshold',
      '2',
      '--margin',
      '1',
      '--finish',
      '5',
      fixture('app@.service'),
    ]);
    // 1 s × 2 + 1 s = 3 s; TimeoutStopSec 10 s leaves 7 s ≥ 5 s.
    expect(out).toMatchObject({ code: 0, stderr: '' });
  });

  it('a Helm template: one line saying to render it first, exit 2, no YAML warnings', async () => {
    const out = await runCli(['deploy', 'check', fixture('helm-deployment.yaml')]);
    expect(out).toMatchObject({ code: 2, stdout: '' });
    expect(out.stderr).toMatch(
      /^proxyops: .*helm-deployment\.yaml:4: a template \(\{\{ … \}\}\), not a manifest: render it first \(helm template .*\n$/,
    );
    // Without the lines that start with {{, the template still is one (an unquoted value).
    const text = readFileSync(fixture('helm-deployment.yaml'), 'utf8');
    expect(() => check('h.yaml', text.replace(/^.*\{\{- include.*\n/m, ''))).toThrow(/h\.yaml:4: a template/);
  });

  it('a file that is none of the three, or missing: one line, exit 2', async () => {
    const garbage = await runCli(['deploy', 'check', fixture('garbage.txt')]);
    expect(garbage.code).toBe(2);
    expect(garbage.stderr).toMatch(
      /^proxyops: .*garbage\.txt: not a Kubernetes manifest, systemd unit or compose file\n$/,
    );
    const missing = await runCli(['deploy', 'check', fixture('nope.yaml')]);
    expect(missing.code).toBe(2);
    expect(missing.stderr.trim().split('\n')).toHaveLength(1);
    const bad = await runCli(['deploy', 'check', '--threshold', '1.5', fixture('app@.service')]);
    expect(bad.code).toBe(2);
  });
});
