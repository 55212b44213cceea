import { formatStatusDistribution } from '../proxy-config/core/apply/status-distribution.js';
import type { DeployEvent } from '../proxy-config/core/deploy/deploy-events.js';
import { formatWait } from '../proxy-config/core/deploy/drain-timing.js';
import { describe5xx, FIVEXX_ALPHA } from '../proxy-config/core/deploy/fivexx-gate.js';
import {
  DEFAULT_LATENCY_RULE as RULE,
  requestTimesNeeded,
  type LatencyEvidence,
  type RouteEvidence,
} from '../proxy-config/core/deploy/latency-verdict.js';
import {
  describeOwnStart,
  describeWithoutRecord,
  vetoedByOwnStart,
} from '../proxy-config/core/deploy/own-start.js';
import {
  toAddress,
  type DeployPlan,
  type DeployStep,
  type InstanceAddress,
} from '../proxy-config/core/deploy/plan-deploy.js';
import { neverRests, RESTLESS_COST } from '../proxy-config/core/adopt/restless-alternates.js';
import { LATENCY_WATCH_EXTENSION } from '../proxy-config/core/deploy/watch-end.js';

function stepWait(step: DeployStep): string {
  if (step.waitMs !== undefined && step.boundMs !== undefined)
    return `  [wait ${formatWait(step.waitMs)}, at most ${formatWait(step.waitMs + step.boundMs)}]`;
  if (step.waitMs !== undefined) return `  [wait ${formatWait(step.waitMs)}]`;
  if (step.boundMs !== undefined) return `  [at most ${formatWait(step.boundMs)}]`;
  return '';
}

function gate(limit: number | null): string {
  return limit === null ? 'report only' : `at most +${(limit * 100).toFixed(1)} points`;
}

/** The 5xx gate's two parts: the rise a test of proportions finds, and the floor. */
function gate5xx(gates: DeployPlan['gates']): string {
  const rise =
    gates.max5xxIncrease === null
      ? 'a rise reported only'
      : `at most +${(gates.max5xxIncrease * 100).toFixed(1)} points over the other instances' share (or the log before) once Fisher's exact test finds it higher`;
  const floor =
    gates.max5xxShare === null
      ? 'no floor'
      : `never above ${(gates.max5xxShare * 100).toFixed(1)}% (binomial test)`;
  return `${rise}, ${floor}; p < ${FIVEXX_ALPHA}`;
}

/** How old instances are told to stop: proxyops's signal to its own child, or the stop hook. */
function stopping(plan: DeployPlan): string {
  if (plan.launch.kind === 'command') return `stop signal ${plan.stopSignal}`;
  return plan.launch.stop ? 'stopped by the stop hook' : 'no stop hook: old instances are left running, idle';
}

/** Why an instance behind an adopted config has no alternate path. */
function noAlternate(instance: InstanceAddress): string {
  if (instance.alternate)
    return 'its alternate is not used: without a stop hook nothing makes the old instance leave';
  if (instance.notInSpec)
    return 'the spec names this address neither as a server nor as an alternate: the instance serving there was started under a spec that paired it, which changed since';
  return 'the spec gives it no alternate';
}

/** A warning per idle address of a pair whose parameters keep nginx from resting it. */
function restlessIdle(plan: DeployPlan): string[] {
  return plan.instances.flatMap(({ alternate }) => {
    const param =
      alternate &&
      neverRests([`max_fails=${alternate.maxFails ?? 1}`, `fail_timeout=${alternate.failTimeout}s`]);
    return param
      ? [
          `  warning: the idle ${toAddress(alternate)} has ${param}: nginx never rests it, so ${RESTLESS_COST}`,
        ]
      : [];
  });
}

/** The plan as people read it: the drain arithmetic, then every step with its computed wait. */
export function formatDeployPlan(plan: DeployPlan): string {
  const d = plan.drain;
  // Behind a hand-written config only the alternate path runs: a reload path there is refused, so
  // its drain mode and wait apply to nothing.
  const reloads = plan.adopted === undefined && plan.paths.some((path) => path === 'reload');
  const refused = plan.adopted === undefined ? 0 : plan.paths.filter((path) => path !== 'alternate').length;
  const lines = [
    `deploy plan: upstream ${plan.upstream}, ${plan.instances.length} instance(s) (${plan.instances.map(toAddress).join(', ')}), one at a time`,
    // The drain mode is how a reload-path instance leaves nginx; behind a slot nothing is reloaded.
    !reloads ? stopping(plan) : `drain mode ${plan.drainMode} (reload-path instances), ${stopping(plan)}`,
    // The stop hook drains an instance it stops its own way: the computed wait is told to no one.
    plan.launch.kind === 'hooks' && !reloads
      ? `drain: the stop hook's own; the deploy measures how long the old instance takes to refuse connections`
      : `drain wait = interval × threshold ${formatWait(d.detectMs)} + margin ${formatWait(d.marginMs)} = ${formatWait(d.waitMs)}`,
    ...(plan.logDelayMs > 0
      ? [`the access log is buffered: log windows grow by its flush, ${formatWait(plan.logDelayMs)}`]
      : []),
    `gates: 5xx ${gate5xx(plan.gates)}, 4xx ${gate(plan.gates.max4xxIncrease)} (429, 401/403, 404 shown), latency ${plan.gates.maxP99Ratio === null ? 'report only' : `median at most ${plan.gates.maxP99Ratio}x the other instances' (or the log before), or at most ${RULE.minEffectMs} ms more (its fastest tenth too), in ${RULE.consecutive} slices of ${RULE.sliceRequests} requests in a row, Mann-Whitney U; judged on at least ${requestTimesNeeded(RULE)} of its request times (a warm-up of at least ${RULE.minWarmupRequests} left out, longer while its latency still falls, then ${RULE.consecutive} slices of ${RULE.sliceRequests}); a watch whose new instance is not warm yet goes on up to ${LATENCY_WATCH_EXTENSION}x its wait, within the step's "at most", and one that ends with fewer reports latency "not judged" without failing on it; then each route on ${RULE.sliceRequests} of its own requests in ${RULE.consecutive} slices in a row, a route of ${RULE.minRouteShare * 100} % or more of them keeping the watch going up to the step's "at most"; slower only if also slower than the old release's own start at the same age, where the last deploy recorded it, or, not slower than that start, still slower than its peers after the slices that first fired and not 3 slices in a row as fast as they when the watch ends (it goes on up to the step's "at most" for that)`}${plan.canaryMs > 0 ? `; canary: the first new instance is watched ${formatWait(plan.canaryMs)}` : ''}`,
    plan.watch.mode === 'readiness-only'
      ? `watch: readiness only: the new instance must stay alive and ready; its status codes and request times are not judged`
      : `watch: judges the new instance's status codes once it answered ${plan.watch.minRequests} requests${plan.gates.maxP99Ratio === null ? '' : ` (its latency needs ${requestTimesNeeded(RULE)} request times: above)`}, waiting up to ${formatWait(plan.watch.maxWatchMs)} for them; else ${plan.watch.keepNotJudged ? 'kept, as a rollback is, and named: not judged' : 'rolled back and stopped: could not judge'}`,
    ...plan.watch.unseen.map((what) => `  not seen: ${what}`),
    ...plan.envChanges.map(
      (c) =>
        `  setting ${c.name}=${c.value} (now ${c.was ?? "unset: the API's default"}) for the new instances; recorded for the stack only if the deploy succeeds`,
    ),
    ...plan.envKept.map(
      (c) =>
        `  keeping ${c.name}=${c.value} for the new instances (recorded for the stack by up, --api-env or an earlier deploy --env)`,
    ),
    ...(plan.launch.kind === 'hooks'
      ? [
          `instances start and stop by the spec's hooks${plan.version === undefined ? '' : ` (version ${plan.version})`}; readiness: ${plan.launch.ready ? `the ready hook (${plan.launch.ready.join(' ')})` : `GET ${plan.readinessPath}`}`,
        ]
      : []),
    ...(plan.adopted === undefined
      ? []
      : [
          refused === 0
            ? `behind the hand-written config ${plan.adopted}: every instance takes the alternate path (the adopted upstream lists both addresses of its pair); a deploy never edits or reloads that config`
            : `behind the hand-written config ${plan.adopted}: only the alternate path is taken (a deploy never edits or reloads that config), and ${refused} of ${plan.instances.length} instance(s) cannot take it (below): the deploy is refused until each can`,
        ]),
    ...plan.instances.map((instance, i) =>
      plan.adopted !== undefined && plan.paths[i] !== 'alternate'
        ? `  ${toAddress(instance)}: refused: no alternate path (${noAlternate(instance)}), and the ${plan.paths[i]} path would change the hand-written config`
        : plan.paths[i] === 'slot'
          ? `  ${toAddress(instance)}: slot path (a new socket renamed over the slot; no nginx reload)`
          : plan.paths[i] === 'alternate'
            ? `  ${toAddress(instance)}: alternate path (the new instance on ${toAddress(instance.alternate!)}, which nginx already lists; no nginx reload)`
            : `  ${toAddress(instance)}: reload path (config change and nginx reload per step)${instance.alternate ? `; its alternate ${toAddress(instance.alternate)} is not used: without a stop hook nothing makes the old instance leave` : ''}`,
    ),
    ...restlessIdle(plan),
    ...plan.steps.map(
      (s) =>
        `  ${String(s.index).padStart(2)}. [${s.round}/${plan.instances.length}] ${s.kind}: ${s.title}${stepWait(s)}`,
    ),
    `takes between ${formatWait(plan.minMs)} and ${formatWait(plan.maxMs)}`,
  ];
  return `${lines.join('\n')}\n`;
}

/** The prefix naming the host of a step in a deploy across hosts. */
function onHost(host: string | undefined): string {
  return host === undefined ? '' : `${host}: `;
}

/**
 * The latency gate's evidence in one line: its verdict, the warm-up cut, each slice's medians (the new
 * instance's / the comparison's, ms; `|` where the warm-up ends, `*` a slice found slower), the limits,
 * and the old release's own start where it was judged against it (the verdict, when it overruled the peers').
 */
export function formatLatency(e: LatencyEvidence): string {
  const cut = e.warmupCut / e.rule.sliceRequests;
  const slices = e.slices
    .map(
      (s, i) =>
        `${i === cut ? '| ' : ''}${s.medians.mine}/${s.medians.against}${s.slower && s.judged ? '*' : ''}`,
    )
    .join(' ');
  const ownStart = e.ownStart && describeOwnStart(e.ownStart);
  const withoutRecord = describeWithoutRecord(e);
  const verdict =
    e.verdict === 'not judged'
      ? `not judged (${e.note})`
      : vetoedByOwnStart(e)
        ? ownStart
        : e.withoutRecord === 'warm'
          ? withoutRecord
          : e.verdict;
  const routes = e.routes.map(formatRoute).join('; ');
  const against = [
    ownStart && !vetoedByOwnStart(e) && ownStart,
    e.withoutRecord === 'never warm' && withoutRecord,
  ]
    .filter(Boolean)
    .map((text) => `; ${text}`)
    .join('');
  return `latency: ${verdict}; ${e.samples.mine} request times of the new instance against ${e.samples.others} of the others (${e.samples.before} before), warm-up ${e.warmupCut}; slice medians new/comparison ms: ${slices || 'none complete'}${routes ? `; by route, after the warm-up: ${routes}` : ''}; limits ${e.rule.maxRatio}x and +${e.rule.minEffectMs} ms (median and fastest tenth), p < ${e.rule.alpha}, ${e.rule.consecutive} slices of ${e.rule.sliceRequests} in a row${against}`;
}

/** A route's own slices: `POST /orders (12 %): slower, 9/9 89/10* 90/9*`, or its note when not judged. */
function formatRoute(r: RouteEvidence): string {
  if (r.verdict === 'not judged') return r.note!;
  const slices = r.slices
    .map((s) => `${s.medians.mine}/${s.judged ? s.medians.against : '-'}${s.slower && s.judged ? '*' : ''}`)
    .join(' ');
  return `${r.route} (${Math.round(r.share * 100)} %): ${r.verdict}, ${slices}`;
}

/** One progress line for an event (the plan event prints the whole plan). */
export function formatDeployEvent(event: DeployEvent): string {
  switch (event.type) {
    case 'plan':
      return formatDeployPlan(event.plan);
    case 'step-start':
      return `${onHost(event.host)}→ ${event.step.index}. ${event.step.kind}: ${event.step.title}\n`;
    case 'countdown':
      return `    … ${formatWait(Math.ceil(event.remainingMs / 100) * 100)} left${event.goesOn ? ` (${event.goesOn})` : ''}\n`;
    case 'step-done':
      return `${onHost(event.host)}  ✓ ${event.step.index}. ${event.outcome} (${formatWait(event.ms)})\n`;
    case 'status': {
      const n = event.newInstance;
      const fourxx = n
        ? Object.entries(n.fourxx)
            .filter(([, count]) => count > 0)
            .map(([kind, count]) => `${kind}×${count}`)
            .join(', ')
        : '';
      const mine = !n
        ? ''
        : n.total === 0
          ? `; new instance ${n.instance ?? n.address}: no requests in the watch, so its status codes and latency were not judged (only that it stayed alive and ready)`
          : `; new instance ${n.instance ?? n.address}: ${n.total} requests, ${n.fivexx} 5xx${fourxx ? `, ${fourxx}` : ''}, p99 ${n.p99Ms} ms${n.separated ? '' : ' (the log names no instance: the whole window)'}`;
      const fivexx = event.fivexx && event.gate?.gate !== '5xx' ? `\n    ${describe5xx(event.fivexx)}` : '';
      const fired = event.gate ? `\n    gate ${event.gate.gate} fired: ${event.gate.text}` : '';
      const unseen = event.unseen ?? [];
      const latency = event.latency && n && n.total > 0 ? `\n    ${formatLatency(event.latency)}` : '';
      // A failed readiness-only watch says what happened (an exit, failed probes, 502s), not "alive and ready".
      if (event.watch === 'readiness-only')
        return `    watch of ${n ? `new instance ${n.instance ?? n.address}` : 'the new instance'}: ${event.verdict.verdict === 'regressed' ? `→ regressed: ${event.reason ?? 'see the abort line'}` : `alive and ready → ${event.verdict.verdict}`} (${unseen.join('; ')})\n`;
      const blind = unseen.length > 0 ? `\n    could not see: ${unseen.join('; ')}` : '';
      return `    status codes: before ${formatStatusDistribution(event.before)}; now ${formatStatusDistribution(event.after)}${mine}${p99Text(event)} → ${event.verdict.verdict.replace('-', ' ')}${fivexx}${fired}${latency}${blind}\n`;
    }
    case 'drain':
      return `    drain: ${event.computedMs === undefined ? "the stop hook's, " : `computed ${formatWait(event.computedMs)}, `}measured ${event.measuredMs === null ? 'n/a' : formatWait(event.measuredMs)}\n`;
    case 'abort':
      return `✗ aborted at step ${event.step}${event.kind ? ` (${event.kind}${event.host ? ` on ${event.host}` : ''})` : ''}: ${event.reason}${event.rolledBack && !event.reason.includes('rolled back') ? ' (rolled back: the old instance serves)' : ''}\n`;
    case 'done':
      return event.outcome === 'deployed'
        ? `deployed in ${formatWait(event.ms)}: ${event.instances.join(', ')}\n`
        : `deploy ${event.outcome === 'not-judged' ? 'stopped, the new release not judged,' : 'aborted'} after ${formatWait(event.ms)}; serving: ${event.instances.join(', ')}\n`;
  }
}

/**
 * The window's p99 against the one before, of every instance (named so: the new instance's own p99 is
 * in its part of the line); a side without a request says so rather than "0 ms".
 */
function p99Text(event: Extract<DeployEvent, { type: 'status' }>): string {
  const p = event.p99Ms;
  if (!p) return '';
  // The line already says "now no requests".
  if (event.after.total === 0) return '';
  if (p.after === undefined) return '; no request time logged in the window, so no p99';
  return p.before === undefined
    ? `; p99 of all instances: ${p.after} ms in the watch (no request before)`
    : `; p99 of all instances: ${p.before} ms before, ${p.after} ms in the watch`;
}
