import { formatWait, type DrainTiming } from '../deploy/drain-timing.js';
import { RUNBOOKS } from '../lint/runbooks.js';
import type { LintSeverity } from '../lint/types.js';
import type { Place, StopSetup } from './stop-setup.js';

/** The drain a workload must allow for (§4.7.2), and what it was computed from, in words. */
export interface CheckedDrain extends DrainTiming {
  /** `periodSeconds 10 s × failureThreshold 3`: the parts of detectMs as the file names them. */
  detectFrom: string;
  /** Time an instance needs after its drain to finish the requests it holds (the deploy's stopTimeout). */
  finishMs: number;
}

/** Where a rule fired, what it saw, and the numbers it computed (the `--json` item's `numbers`). */
export interface DeployCheckHit {
  place: Place;
  what: string;
  numbers: Record<string, number | null>;
}

/** A deploy-check rule as data: adding a rule is adding a row to DEPLOY_CHECK_RULES. */
export interface DeployCheckRule {
  id: string;
  severity: LintSeverity;
  title: string;
  message: string;
  fix: string;
  runbook: string | null;
  test: (setup: StopSetup, drain: CheckedDrain) => DeployCheckHit[];
}

const w = formatWait;
const drainWords = (d: CheckedDrain) => `${d.detectFrom} + margin ${w(d.marginMs)} = ${w(d.waitMs)}`;

/** When the instance stops serving: after its preStop sleep (Kubernetes), else after the drain it does itself. */
function servesUntilMs(setup: StopSetup, drain: CheckedDrain): number {
  return typeof setup.preStopSleepMs === 'number' ? setup.preStopSleepMs : drain.waitMs;
}

/** Every check of `proxyops deploy check`; ids are stable. */
export const DEPLOY_CHECK_RULES: readonly DeployCheckRule[] = [
  {
    id: 'prestop-sleep-missing',
    severity: 'error',
    title: 'a container behind a readiness probe has no preStop sleep',
    message:
      'Kubernetes sends the stop signal as soon as the pod is deleted, while endpoints and balancers polling readiness still send it requests: an app that stops accepting at once answers them with refused connections, 502s on every rollout (§4.7.2).',
    fix: 'add lifecycle.preStop.sleep.seconds (Kubernetes 1.30+) or lifecycle.preStop.exec.command: ["sleep", "N"] with N at least the computed drain, and raise terminationGracePeriodSeconds to N + the time requests take to finish',
    runbook: RUNBOOKS.stoppedBeforeRemoved,
    test: (setup, drain) =>
      setup.source === 'kubernetes' && setup.readiness && setup.preStopSleepMs === undefined
        ? [
            {
              place: setup.place,
              what: `${setup.name}: no preStop sleep; the balancer can keep sending for ${drainWords(drain)}`,
              numbers: {
                preStopSleepMs: 0,
                drainMs: drain.waitMs,
                detectMs: drain.detectMs,
                marginMs: drain.marginMs,
              },
            },
          ]
        : [],
  },
  {
    id: 'prestop-sleep-too-short',
    severity: 'error',
    title: 'preStop sleep shorter than readiness period × failure threshold + margin',
    message:
      'The stop signal arrives when the preStop sleep ends; a balancer polling readiness needs period × threshold to notice, plus a margin for the change to reach every proxy. Requests sent in between find the app gone: 502s on every rollout (§4.7.2).',
    fix: 'make the preStop sleep at least the computed drain (or lower periodSeconds × failureThreshold), and keep terminationGracePeriodSeconds above sleep + the time requests take to finish',
    runbook: RUNBOOKS.stoppedBeforeRemoved,
    test: (setup, drain) =>
      typeof setup.preStopSleepMs === 'number' && setup.preStopSleepMs < drain.waitMs
        ? [
            {
              place: setup.preStopPlace ?? setup.place,
              what: `${setup.name}: preStop sleeps ${w(setup.preStopSleepMs)}, ${w(drain.waitMs - setup.preStopSleepMs)} short of ${drainWords(drain)}`,
              numbers: {
                preStopSleepMs: setup.preStopSleepMs,
                drainMs: drain.waitMs,
                detectMs: drain.detectMs,
                marginMs: drain.marginMs,
                shortByMs: drain.waitMs - setup.preStopSleepMs,
              },
            },
          ]
        : [],
  },
  {
    id: 'prestop-length-unknown',
    severity: 'warning',
    title: 'preStop hook of unknown length',
    message:
      'The hook is not a sleep this check can read (an httpGet, a script that does not start with sleep): how long the pod keeps serving cannot be checked against the drain.',
    fix: 'use lifecycle.preStop.sleep.seconds or exec: ["sleep", "N"], or check by hand that the hook lasts at least the computed drain',
    runbook: RUNBOOKS.stoppedBeforeRemoved,
    test: (setup, drain) =>
      setup.preStopSleepMs === null
        ? [
            {
              place: setup.preStopPlace ?? setup.place,
              what: `${setup.name}: preStop hook of unknown length; it must last at least ${drainWords(drain)}`,
              numbers: { drainMs: drain.waitMs },
            },
          ]
        : [],
  },
  {
    id: 'stop-timeout-before-drain',
    severity: 'error',
    title: 'killed (SIGKILL) before the drain ends',
    message:
      'The process manager kills the instance when its stop timeout runs out. A timeout no longer than the drain kills it while balancers may still send to it, and cuts every request in flight.',
    fix: 'raise the stop timeout above the drain plus the time requests take to finish (the deploy gives 10 s by default)',
    runbook: RUNBOOKS.stoppedBeforeRemoved,
    test: (setup, drain) => {
      const until = servesUntilMs(setup, drain);
      return setup.servesTraffic && setup.stopTimeoutMs !== null && setup.stopTimeoutMs <= until
        ? [
            {
              place: setup.stopTimeoutPlace,
              what: `${setup.name}: ${setup.stopTimeoutName} ${w(setup.stopTimeoutMs)} kills it before it stops serving at ${w(until)}${typeof setup.preStopSleepMs === 'number' ? ' (the preStop sleep)' : ` (${drainWords(drain)})`}`,
              numbers: { stopTimeoutMs: setup.stopTimeoutMs, servesUntilMs: until, drainMs: drain.waitMs },
            },
          ]
        : [];
    },
  },
  {
    id: 'stop-timeout-leaves-no-finish',
    severity: 'warning',
    title: 'little time left after the drain to finish requests',
    message:
      'After the drain the instance still has requests in flight; the stop timeout leaves less than the deploy allows for them, so a slow request is cut.',
    fix: 'raise the stop timeout to the drain plus the slowest request you serve',
    runbook: RUNBOOKS.stoppedBeforeRemoved,
    test: (setup, drain) => {
      const until = servesUntilMs(setup, drain);
      const left = setup.stopTimeoutMs === null ? Infinity : setup.stopTimeoutMs - until;
      return setup.servesTraffic && setup.stopTimeoutMs !== null && left > 0 && left < drain.finishMs
        ? [
            {
              place: setup.stopTimeoutPlace,
              what: `${setup.name}: ${setup.stopTimeoutName} ${w(setup.stopTimeoutMs)} leaves ${w(left)} after it stops serving at ${w(until)} (less than ${w(drain.finishMs)})`,
              numbers: {
                stopTimeoutMs: setup.stopTimeoutMs,
                servesUntilMs: until,
                leftMs: left,
                finishMs: drain.finishMs,
              },
            },
          ]
        : [];
    },
  },
  {
    id: 'stop-signal-not-graceful',
    severity: 'error',
    title: 'the stop signal cannot be handled',
    message:
      'SIGKILL (or SIGSTOP) cannot be caught: the instance never drains, and every request in flight is cut.',
    fix: 'use the graceful stop signal: SIGQUIT for containers (§4.7.4), or the one the app drains on (SIGTERM for most)',
    runbook: RUNBOOKS.stoppedBeforeRemoved,
    test: (setup) =>
      setup.stopSignal === 'SIGKILL' || setup.stopSignal === 'SIGSTOP'
        ? [
            {
              place: setup.stopSignalPlace ?? setup.place,
              what: `${setup.name}: ${setup.stopSignalName}=${setup.stopSignal}`,
              numbers: {},
            },
          ]
        : [],
  },
  {
    id: 'container-stop-signal',
    severity: 'warning',
    title: 'a container is stopped with another signal than SIGQUIT',
    message:
      'The graceful stop signal for containers is SIGQUIT (§4.7.4): nginx and proxyops api drain on it; on SIGTERM nginx stops at once. Checked only for services with a healthcheck that a balancer sends to (not a database, cache or broker image).',
    fix: "stop_signal: SIGQUIT, if the app drains on it (not for a database: SIGQUIT is PostgreSQL's immediate stop)",
    runbook: RUNBOOKS.stoppedBeforeRemoved,
    test: (setup) =>
      setup.source === 'compose' &&
      setup.servesTraffic &&
      setup.readiness &&
      setup.stopSignal !== 'SIGQUIT' &&
      setup.stopSignal !== 'SIGKILL'
        ? [
            {
              place: setup.stopSignalPlace ?? setup.place,
              what: `${setup.name}: stop_signal ${setup.stopSignal}`,
              numbers: {},
            },
          ]
        : [],
  },
  {
    id: 'readiness-probe-missing',
    severity: 'warning',
    title: 'a container with ports has no readiness probe',
    message:
      'Without a readiness probe a new pod takes traffic as soon as it starts, with cold pools and caches (§4.7.1), and nothing takes it out before it stops.',
    fix: 'add a readinessProbe on the readiness endpoint (httpGet path /health/ready)',
    runbook: RUNBOOKS.trafficBeforeReady,
    test: (setup) =>
      setup.source === 'kubernetes' && setup.servesTraffic && !setup.readiness
        ? [{ place: setup.place, what: `${setup.name}: no readinessProbe`, numbers: {} }]
        : [],
  },
];
