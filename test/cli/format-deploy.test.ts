import { describe, expect, it } from 'vitest';
import { formatDeployEvent, formatDeployPlan, formatLatency } from '../../cli/format-deploy.js';
import { DEFAULT_5XX, judge5xx } from '../../proxy-config/core/deploy/fivexx-gate.js';
import { judgeLatencySlices } from '../../proxy-config/core/deploy/latency-verdict.js';
import { recordStart, settleOwnStart, withOwnStart } from '../../proxy-config/core/deploy/own-start.js';
import { planDeploy } from '../../proxy-config/core/deploy/plan-deploy.js';
import { DEFAULTS } from '../../proxy-config/core/spec/defaults.js';

const plan = planDeploy({
  upstream: 'api',
  pool: {
    healthCheck: { readinessPath: '/health/ready', interval: 5, failureThreshold: 3, margin: 5 },
    deploy: { ...DEFAULTS.deploy, command: ['app', '--port', '{port}'] },
  },
  instances: [{ host: '127.0.0.1', port: 8080 }],
  logDelayMs: 0,
});

describe('deploy progress for people', () => {
  it('prints the drain arithmetic and every step with its computed wait', () => {
    const text = formatDeployPlan(plan);
    expect(text).toContain('drain wait = interval × threshold 15 s + margin 5 s = 20 s');
    expect(text).toMatch(/ 2\. \[1\/1\] wait-ready: .*\[at most 30 s\]/);
    expect(text).toMatch(
      / 4\. \[1\/1\] watch: .*5xx \+1\.0 points or above 5\.0%, 4xx \+5\.0 points, latency 2\.5x \(median, Mann-Whitney U\).*\[wait 5 s, at most 60 s\]/,
    );
    expect(text).toContain(
      `gates: 5xx at most +1.0 points over the other instances' share (or the log before) once Fisher's exact test finds it higher, never above 5.0% (binomial test); p < 0.001, 4xx at most +5.0 points (429, 401/403, 404 shown), latency median at most 2.5x the other instances' (or the log before), or at most 40 ms more (its fastest tenth too), in 2 slices of 50 requests in a row, Mann-Whitney U; judged on at least 200 of its request times (a warm-up of at least 100 left out, longer while its latency still falls, then 2 slices of 50); a watch whose new instance is not warm yet goes on up to 3x its wait, within the step's "at most", and one that ends with fewer reports latency "not judged" without failing on it; then each route on 50 of its own requests in 2 slices in a row, a route of 5 % or more of them keeping the watch going up to the step's "at most"; slower only if also slower than the old release's own start at the same age, where the last deploy recorded it, or, not slower than that start, still slower than its peers after the slices that first fired and not 3 slices in a row as fast as they when the watch ends (it goes on up to the step's "at most" for that)`,
    );
    expect(text).toMatch(/ 8\. \[1\/1\] wait-exit: .*after 20 s.*\[at most 31 s\]/);
    expect(text).toContain('  127.0.0.1:8080: reload path (config change and nginx reload per step)');
    // Header (3), the gates, the watch, one path line per instance, the steps, the total.
    expect(text.trim().split('\n')).toHaveLength(3 + 3 + plan.steps.length + 1);
  });

  it('says which instance takes the slot path, what a deploy --env changes and which recorded settings it keeps', () => {
    const slotted = planDeploy({
      upstream: 'api',
      pool: { healthCheck: DEFAULTS.healthCheck, deploy: { ...DEFAULTS.deploy, command: ['app'] } },
      instances: [
        { host: '', port: 0, slot: '/run/app/slot-0.sock' },
        { host: '10.0.0.2', port: 8080 },
      ],
      logDelayMs: 0,
      envChanges: [{ name: 'PROXYOPS_RATE_LIMIT', value: '1', was: '600' }],
      envKept: [{ name: 'PROXYOPS_BODY_LIMIT', value: '2mb' }],
    });
    const text = formatDeployPlan(slotted);
    expect(slotted.paths).toEqual(['slot', 'reload']);
    expect(text).toContain('unix:/run/app/slot-0.sock: slot path');
    expect(text).toContain('10.0.0.2:8080: reload path');
    expect(text).toContain('setting PROXYOPS_RATE_LIMIT=1 (now 600)');
    // The status codes are judged on fewer requests than the latency: the watch line says both.
    expect(text).toMatch(
      /watch: judges the new instance's status codes once it answered 20 requests \(its latency needs 200 request times: above\)/,
    );
    expect(text).toContain(
      'keeping PROXYOPS_BODY_LIMIT=2mb for the new instances (recorded for the stack by up, --api-env or an earlier deploy --env)',
    );
    // Hooks start instances with an environment of their own: nothing is said to be kept.
    const hooked = planDeploy({
      upstream: 'api',
      pool: { healthCheck: DEFAULTS.healthCheck, deploy: { ...DEFAULTS.deploy, start: ['start', '{port}'] } },
      instances: [{ host: '10.0.0.2', port: 8080 }],
      logDelayMs: 0,
      envKept: [{ name: 'PROXYOPS_BODY_LIMIT', value: '2mb' }],
    });
    expect(hooked.envKept).toEqual([]);
    expect(formatDeployPlan(hooked)).not.toContain('keeping PROXYOPS');
    const kinds = slotted.steps.filter((s) => s.round === 1).map((s) => s.kind);
    expect(kinds).toEqual(['start', 'wait-ready', 'swap', 'watch', 'signal', 'wait-exit']);
    expect(slotted.steps.filter((s) => s.round === 2).map((s) => s.kind)).toContain('add');
  });

  it('behind an adopted config: warns of an idle address nginx never rests, and names an instance the spec no longer pairs', () => {
    const adopted = {
      ...planDeploy({
        upstream: 'backend',
        pool: {
          healthCheck: DEFAULTS.healthCheck,
          deploy: { ...DEFAULTS.deploy, start: ['start', '{port}'], stop: ['stop', '{port}'] },
        },
        instances: [
          {
            host: '127.0.0.1',
            port: 18301,
            alternate: { host: '127.0.0.1', port: 18311, failTimeout: 0, maxFails: 1 },
          },
          {
            host: '127.0.0.1',
            port: 18302,
            alternate: { host: '127.0.0.1', port: 18312, failTimeout: 10, maxFails: 0 },
          },
          { host: '127.0.0.1', port: 18313, notInSpec: true },
        ],
        logDelayMs: 0,
      }),
      adopted: '/etc/nginx/nginx.conf',
    };
    const lines = formatDeployPlan(adopted).split('\n');
    expect(lines.filter((l) => l.includes('warning:'))).toEqual([
      '  warning: the idle 127.0.0.1:18311 has fail_timeout=0: nginx never rests it, so every request nginx sends there costs a refused connect and an error.log line until a deploy starts an instance on it',
      '  warning: the idle 127.0.0.1:18312 has max_fails=0: nginx never rests it, so every request nginx sends there costs a refused connect and an error.log line until a deploy starts an instance on it',
    ]);
    expect(lines).toContain(
      '  127.0.0.1:18313: refused: no alternate path (the spec names this address neither as a server nor as an alternate: the instance serving there was started under a spec that paired it, which changed since), and the reload path would change the hand-written config',
    );
  });

  it('behind a hand-written config: a header that agrees with the refused instances, and no reload drain', () => {
    const hooks = {
      ...DEFAULTS.deploy,
      start: ['start', '{port}'],
      stop: ['stop', '{port}'],
    };
    const adopted = (instances: Parameters<typeof planDeploy>[0]['instances']) => ({
      ...planDeploy({
        upstream: 'backend',
        pool: { healthCheck: DEFAULTS.healthCheck, deploy: hooks },
        instances,
        logDelayMs: 0,
      }),
      adopted: '/etc/nginx/nginx.conf',
    });
    const paired = formatDeployPlan(
      adopted([
        { host: '127.0.0.1', port: 18301, alternate: { host: '127.0.0.1', port: 18311, failTimeout: 10 } },
      ]),
    );
    expect(paired).toContain('every instance takes the alternate path');
    const oneUnpaired = adopted([
      { host: '127.0.0.1', port: 18301, alternate: { host: '127.0.0.1', port: 18311, failTimeout: 10 } },
      { host: '127.0.0.1', port: 18312 },
    ]);
    expect(oneUnpaired.paths).toEqual(['alternate', 'reload']);
    const text = formatDeployPlan(oneUnpaired);
    expect(text).not.toContain('every instance takes the alternate path');
    expect(text).toContain(
      'behind the hand-written config /etc/nginx/nginx.conf: only the alternate path is taken (a deploy never edits or reloads that config), and 1 of 2 instance(s) cannot take it (below): the deploy is refused until each can',
    );
    expect(text).toContain('  127.0.0.1:18312: refused: no alternate path (the spec gives it no alternate)');
    // The reload path's drain applies to nothing here: the stop hook's own drain is what runs.
    expect(text).not.toMatch(/drain mode|drain wait/);
    expect(text).toContain("drain: the stop hook's own");
  });

  it('counts waits down, says why the count restarts past the wait, and how it ended', () => {
    expect(formatDeployEvent({ type: 'countdown', step: 8, remainingMs: 12_340 })).toBe(
      '    … 12.4 s left\n',
    );
    expect(
      formatDeployEvent({
        type: 'countdown',
        step: 4,
        remainingMs: 9_800,
        goesOn:
          'past its wait: 34 of the 100 requests it needs (deploy.minRequests); waiting for more, up to deploy.maxWatch',
      }),
    ).toBe(
      '    … 9.8 s left (past its wait: 34 of the 100 requests it needs (deploy.minRequests); waiting for more, up to deploy.maxWatch)\n',
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
    // A stop hook stops the old instance its own way: no computed wait is told to it.
    expect(formatDeployEvent({ type: 'drain', step: 6, address: '127.0.0.1:8080', measuredMs: 604 })).toBe(
      "    drain: the stop hook's, measured 604 ms\n",
    );
    expect(
      formatDeployEvent({ type: 'abort', step: 4, reason: 'the 5xx share rose', rolledBack: true }),
    ).toBe('✗ aborted at step 4: the 5xx share rose (rolled back: the old instance serves)\n');
    // A reason that says so already is not told twice; no config is named (an alternate pair changes none).
    expect(
      formatDeployEvent({
        type: 'abort',
        step: 4,
        reason: 'the 5xx share rose: rolled back',
        rolledBack: true,
      }),
    ).toBe('✗ aborted at step 4: the 5xx share rose: rolled back\n');
  });

  it('says a watch with no requests judged no status codes, instead of a p99 of 0 ms', () => {
    const none = { total: 0, byStatus: {}, share5xx: 0 };
    const line = formatDeployEvent({
      type: 'status',
      step: 4,
      before: { total: 40, byStatus: { '200': 40 }, share5xx: 0 },
      after: none,
      verdict: { verdict: 'ok', increase: 0 },
      newInstance: {
        address: '127.0.0.1:8081',
        total: 0,
        fivexx: 0,
        fourxx: { '404': 0, '429': 0, '401/403': 0, other: 0 },
        p99Ms: 0,
        separated: true,
      },
      p99Ms: { before: 198, after: 0 },
    });
    expect(line).toContain('new instance 127.0.0.1:8081: no requests in the watch');
    expect(line).toContain('were not judged');
    expect(line).not.toContain('p99');
  });

  it('gives a p99 only for a side that logged a request time, never "0 ms" for none', () => {
    const status = (p99Ms: { before?: number; after?: number }) =>
      formatDeployEvent({
        type: 'status',
        step: 4,
        before: { total: 40, byStatus: { '200': 40 }, share5xx: 0 },
        after: { total: 30, byStatus: { '200': 30 }, share5xx: 0 },
        verdict: { verdict: 'ok', increase: 0 },
        p99Ms,
      });
    expect(status({ before: 38, after: 41 })).toContain(
      '; p99 of all instances: 38 ms before, 41 ms in the watch →',
    );
    expect(status({ before: 38 })).toContain('; no request time logged in the window, so no p99 →');
    expect(status({ after: 41 })).toContain(
      '; p99 of all instances: 41 ms in the watch (no request before) →',
    );
  });

  it("shows the 5xx gate's numbers on an ok verdict too: both sides, both tests, the limit and the floor", () => {
    const line = formatDeployEvent({
      type: 'status',
      step: 4,
      before: { total: 40, byStatus: { '200': 40 }, share5xx: 0 },
      after: { total: 300, byStatus: { '200': 299, '502': 1 }, share5xx: 1 / 300 },
      verdict: { verdict: 'ok', increase: 1 / 300 },
      fivexx: judge5xx({ requests: 100, fivexx: 1 }, { requests: 200, fivexx: 0 }, 'others', DEFAULT_5XX),
    });
    expect(line).toContain(
      '5xx: new instance 1 of 100 (1.0%) against the other instances in the same window 0 of 200 (0.0%); rise +1.0 points (limit +1.0; Fisher p = 0.33); floor 5.0% (binomial p = 0.99); α 0.001 → ok',
    );
  });

  const fourxx = { '404': 0, '429': 0, '401/403': 0, other: 0 };
  const status = (over: object) =>
    formatDeployEvent({
      type: 'status',
      step: 4,
      before: { total: 40, byStatus: { '200': 40 }, share5xx: 0 },
      after: { total: 3, byStatus: { '200': 3 }, share5xx: 0 },
      verdict: { verdict: 'ok', increase: 0 },
      newInstance: { address: '127.0.0.1:8081', total: 3, fivexx: 0, fourxx, p99Ms: 4, separated: true },
      ...over,
    });

  it('names what the watch could not see under every verdict, and a readiness-only watch as such', () => {
    expect(status({ unseen: [] })).not.toContain('could not see');
    expect(
      status({
        verdict: { verdict: 'not-judged', increase: 0 },
        unseen: ['status codes and latency not judged: 3 request(s) of the new instance'],
      }),
    ).toMatch(
      /→ not judged\n {4}could not see: status codes and latency not judged: 3 request\(s\) of the new instance\n$/,
    );
    expect(
      status({
        watch: 'readiness-only',
        unseen: ['not watched: readiness only', 'log_format combined has no $upstream_addr'],
      }),
    ).toBe(
      '    watch of new instance 127.0.0.1:8081: alive and ready → ok (not watched: readiness only; log_format combined has no $upstream_addr)\n',
    );
  });

  it('says what happened to a readiness-only watch that failed, not "alive and ready"', () => {
    const exited = 'the new instance 127.0.0.1:8081 exited during the watch (see /tmp/app.log)';
    expect(
      status({
        watch: 'readiness-only',
        verdict: { verdict: 'regressed', increase: 0 },
        reason: exited,
        unseen: ['not watched: readiness only'],
      }),
    ).toBe(
      `    watch of new instance 127.0.0.1:8081: → regressed: ${exited} (not watched: readiness only)\n`,
    );
  });

  it('plans a readiness-only watch without gates or a traffic bound, and says so', () => {
    const blind = planDeploy({
      upstream: 'api',
      pool: { healthCheck: DEFAULTS.healthCheck, deploy: { ...DEFAULTS.deploy, command: ['app'] } },
      instances: [{ host: '10.0.0.2', port: 8080 }],
      logDelayMs: 0,
      watchMode: 'readiness-only',
      unseen: ['not watched: readiness only'],
    });
    const text = formatDeployPlan(blind);
    expect(text).toContain('watch: readiness only: the new instance must stay alive and ready');
    expect(text).toContain('  not seen: not watched: readiness only\n');
    const watch = blind.steps.find((s) => s.kind === 'watch')!;
    expect(watch.boundMs).toBeUndefined();
    expect(watch.title).toContain('not watched: readiness only');
    expect(watch.title).not.toContain('roll back above');
  });

  it('tells a release not judged from a bad one at the end, and plans a rollback that keeps what it cannot judge', () => {
    const done = (outcome: 'aborted' | 'not-judged') =>
      formatDeployEvent({ type: 'done', outcome, ms: 61_000, instances: ['127.0.0.1:8080'] });
    expect(done('aborted')).toBe('deploy aborted after 61 s; serving: 127.0.0.1:8080\n');
    expect(done('not-judged')).toBe(
      'deploy stopped, the new release not judged, after 61 s; serving: 127.0.0.1:8080\n',
    );
    const rollback = planDeploy({
      upstream: 'api',
      pool: { healthCheck: DEFAULTS.healthCheck, deploy: { ...DEFAULTS.deploy, command: ['app'] } },
      instances: [{ host: '10.0.0.2', port: 8080 }],
      logDelayMs: 0,
      keepNotJudged: true,
    });
    expect(formatDeployPlan(rollback)).toContain(
      'waiting up to 60 s for them; else kept, as a rollback is, and named: not judged',
    );
    expect(rollback.steps.find((s) => s.kind === 'watch')!.title).toContain(
      'else kept (a rollback): not judged',
    );
    expect(formatDeployPlan(plan)).toContain('else rolled back and stopped: could not judge');
  });

  it("shows the latency gate's evidence with the status: verdict, samples, warm-up cut, each slice's medians, the limits", () => {
    // A new instance at 40 ms over its first 100 requests, then 6 ms; its peers at 5 ms, lines taking turns. It
    // is warm once its latency stopped falling: from its third slice on.
    const mine = Array.from({ length: 250 }, (_, i) => (i < 100 ? 40 : 6));
    const lines = (n: number, first: number) => Array.from({ length: n }, (_, i) => 2 * i + first);
    const latency = judgeLatencySlices(
      Array<number>(300).fill(5),
      { ms: mine, lines: lines(250, 1) },
      { ms: Array<number>(250).fill(5), lines: lines(250, 2) },
      2.5,
    );
    const some = { total: 250, byStatus: { '200': 250 }, share5xx: 0 };
    const line = formatDeployEvent({
      type: 'status',
      step: 4,
      before: some,
      after: some,
      verdict: { verdict: 'ok', increase: 0 },
      newInstance: {
        address: '127.0.0.1:8081',
        total: 250,
        fivexx: 0,
        fourxx: { '404': 0, '429': 0, '401/403': 0, other: 0 },
        p99Ms: 40,
        separated: true,
      },
      latency,
    });
    expect(line).toContain(
      '    latency: not slower; 250 request times of the new instance against 250 of the others (300 before), warm-up 150; slice medians new/comparison ms: 40/5 40/5 6/5 | 6/5 6/5; limits 2.5x and +40 ms (median and fastest tenth), p < 0.001, 2 slices of 50 in a row\n',
    );
  });

  it('shows each route judged on its own slices after the warm-up, and a route short of them as not judged', () => {
    // 400 requests, every fourth POST /orders: after the warm-up of 100, 75 POSTs (one slice of their own) and
    // 225 GETs (four). Each side the same: 5 ms, lines taking turns.
    const routes = Array.from({ length: 400 }, (_, i) => (i % 4 === 3 ? 'POST /orders' : 'GET /items'));
    const side = (first: number) => ({
      ms: Array<number>(400).fill(5),
      lines: routes.map((_, i) => 2 * i + first),
      routes,
    });
    const latency = judgeLatencySlices({ ms: [], routes: [] }, side(1), side(2), 2.5);
    expect(formatLatency(latency)).toContain(
      '; by route, after the warm-up: GET /items (75 %): not slower, 5/5 5/5 5/5 5/5; POST /orders: 75 requests, fewer than 2 warm slices of 50: not judged; limits',
    );
  });

  it("says when the old release's own start overruled the peers: slower than they, not than it at the same age", () => {
    // 200 requests at 130 ms against warm peers at 10 ms, then 150 as fast as they: slower than they
    // at first. The old release's instance started at 120 ms over as many requests.
    const lines = (n: number, first: number) => Array.from({ length: n }, (_, i) => 2 * i + first);
    const mine = {
      ms: [...Array<number>(200).fill(130), ...Array<number>(150).fill(10)],
      lines: lines(350, 1),
    };
    const peers = judgeLatencySlices(
      [],
      mine,
      { ms: Array<number>(350).fill(10), lines: lines(350, 2) },
      2.5,
    );
    expect(peers.verdict).toBe('slower');
    const start = recordStart([{ ms: Array<number>(350).fill(120) }], '2026-12-06T10:00:00.000Z', 'v1');
    expect(formatLatency(withOwnStart(peers, mine, start))).toMatch(
      /^latency: slower than the warm peers, not than the old release's own start \(recorded 2026-12-06T10:00:00\.000Z, release v1, 1 instance\(s\)\) at the same age \(its limits 1.5x in 3 slices in a row\): not rolled back \(its requests past the warm-up, slice medians new\/recorded ms: 130\/120 130\/120 10\/120 10\/120 10\/120\); 350 request times/,
    );
    // Still at 130 ms by its newest slices: not judged yet, the watch goes on for it to be warm.
    const cold = { ms: Array<number>(300).fill(130), lines: lines(300, 1) };
    const waiting = withOwnStart(
      judgeLatencySlices([], cold, { ms: Array<number>(300).fill(10), lines: lines(300, 2) }, 2.5),
      cold,
      start,
    );
    expect(formatLatency(waiting)).toMatch(
      /^latency: not judged \(slower than its warm peers, not than the old release's own start at the same age: judged once 3 of its slices in a row are not slower than its peers\); .*; not slower than the old release's own start \(.*\) at the same age \(its limits 1.5x in 3 slices in a row; slice medians new\/recorded ms: 130\/120 130\/120 130\/120 130\/120\), but not yet 3 slices in a row as fast as its warm peers: watching on, up to deploy.maxWatch$/,
    );
    // The watch ends so: rolled back on its later slower slices, the peers' first ones named.
    const settled = settleOwnStart(waiting);
    expect(settled.fired).toEqual([5, 6]);
    expect(formatLatency(settled)).toMatch(
      /^latency: slower; .*; not slower than the old release's own start \(.*\), but slower than its warm peers again after the slices they first found slower \(3, 4\), and not 3 slices in a row as fast as they when the watch ended$/,
    );
  });

  it("says how a first deploy's new instance, slower than its peers with no record of the old start, was judged once warm", () => {
    const lines = (n: number, first: number) => Array.from({ length: n }, (_, i) => 2 * i + first);
    const judge = (ms: number[]) => {
      const mine = { ms, lines: lines(ms.length, 1) };
      const peers = { ms: ms.map(() => 10), lines: lines(ms.length, 2) };
      return withOwnStart(judgeLatencySlices([], mine, peers, 2.5), mine, undefined);
    };
    const cold = Array<number>(200).fill(130);
    expect(formatLatency(judge(cold))).toMatch(
      /^latency: not judged \(slower than its warm peers, with no record of the old release's own start: judged once 3 of its slices in a row are not slower than they, rolled back if the watch reaches deploy.maxWatch first\); 200 request times .*, 2 slices of 50 in a row$/,
    );
    expect(formatLatency(judge([...cold, ...Array<number>(150).fill(10)]))).toMatch(
      /^latency: slower than its warm peers in slices 3, 4, with no record of the old release's own start, then not slower than they in its last 3 slices in a row \(5–7\): warm, not rolled back; 350 request times/,
    );
    expect(formatLatency(settleOwnStart(judge([...cold, ...Array<number>(100).fill(10)])))).toMatch(
      /^latency: slower; .*; slower than its warm peers in slices 3, 4, with no record .*, and not 3 slices in a row as fast as they when the watch ended$/,
    );
  });

  it('names both the record it could not compare with and the warm-up it waited for, when a short record leaves a cold start unjudged', () => {
    const lines = (n: number, first: number) => Array.from({ length: n }, (_, i) => 2 * i + first);
    const mine = {
      ms: [...Array<number>(200).fill(130), ...Array<number>(100).fill(10)],
      lines: lines(300, 1),
    };
    const peers = { ms: mine.ms.map(() => 10), lines: lines(300, 2) };
    // Its deploy's instance answered 120 requests: only requests 101–150 have 20 recorded.
    const short = recordStart([{ ms: Array<number>(120).fill(120) }], '2026-12-06T10:00:00.000Z', 'v1');
    const settled = settleOwnStart(withOwnStart(judgeLatencySlices([], mine, peers, 2.5), mine, short));
    expect(formatLatency(settled)).toMatch(
      /^latency: slower; .*; against the old release's own start \(recorded 2026-12-06T10:00:00\.000Z, release v1, 1 instance\(s\)\): could not compare \(1 of its 4 slice\(s\) past the warm-up had 20 recorded requests at the same numbers, 3 needed\); slower than its warm peers in slices 3, 4, with no record of the old release's own start to compare those slices with, and not 3 slices in a row as fast as they when the watch ended$/,
    );
  });
});
