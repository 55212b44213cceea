import { isMap, isSeq, LineCounter, parseAllDocuments, type Document } from 'yaml';
import { ProxyopsError } from '../errors.js';
import { normalizeSignal, parseDurationMs } from './parse-durations.js';
import type { Place, ReadStopSetups, StopSetup } from './stop-setup.js';

/** The workload kinds whose pod template is read; every other kind is passed over with a note. */
const WORKLOAD_KINDS = new Set(['Deployment', 'StatefulSet']);

/** Kubernetes' defaults when a manifest leaves them out. */
export const KUBERNETES_DEFAULTS = {
  periodSeconds: 10,
  failureThreshold: 3,
  terminationGracePeriodSeconds: 30,
};

type Path = (string | number)[];

/**
 * How long a preStop hook holds the stop signal back: `sleep: {seconds: N}`, `exec: [sleep, N]`, or a
 * shell script's sleeps before its first other command (`sh -c "sleep 5; kill -TERM 1; sleep 25"`
 * drains for 5 s: the app is told to stop then). Undefined without a preStop hook, null when its length is unknown.
 */
export function preStopSleepMs(preStop: unknown): number | null | undefined {
  if (preStop === undefined || preStop === null) return undefined;
  const hook = preStop as { sleep?: { seconds?: unknown }; exec?: { command?: unknown } };
  if (typeof hook.sleep?.seconds === 'number') return hook.sleep.seconds * 1000;
  const argv = hook.exec?.command;
  if (!Array.isArray(argv) || argv.length === 0) return null;
  const words = argv.map(String);
  const program = words[0]!.split('/').at(-1)!;
  if (program === 'sleep') return sleepArgMs(words.slice(1));
  const c = words.indexOf('-c');
  if (['sh', 'bash', 'ash', 'dash', 'zsh'].includes(program) && c > 0 && words[c + 1] !== undefined)
    return scriptSleepMs(words[c + 1]!);
  return null;
}

/** `sleep 5`, `sleep 1m 30`, GNU suffixes s/m/h/d. */
function sleepArgMs(args: string[]): number | null {
  let ms = 0;
  for (const arg of args) {
    const value = parseDurationMs(arg.replace(/^(\d+(?:\.\d+)?)$/, '$1s'));
    if (value === undefined) return null;
    ms += value;
  }
  return args.length > 0 ? ms : null;
}

/** Commands that neither take time nor stop the app: they do not end a script's leading sleeps. */
const PASSIVE_COMMAND = /^(echo|printf|set|true|:)(\s|$)/;

/**
 * The sleeps a shell script runs before its first other command: that command (`kill`, `nginx -s
 * quit`, a `while pgrep` wait) is when the app is told to stop, so a `sleep 1` after it, in a wait
 * loop, does not hold the stop back. Null when the script does not start with a sleep.
 */
function scriptSleepMs(script: string): number | null {
  let ms = 0;
  let sleeps = 0;
  for (const raw of script.split(/&&|\|\||[;|&\n]/)) {
    const command = raw.trim();
    if (command === '' || PASSIVE_COMMAND.test(command)) continue;
    const sleep = /^sleep\s+(.+)$/.exec(command);
    if (!sleep) break;
    const value = sleepArgMs(sleep[1]!.trim().split(/\s+/));
    if (value === null) return null;
    ms += value;
    sleeps += 1;
  }
  return sleeps > 0 ? ms : null;
}

/** Reads every Deployment and StatefulSet of a (multi-document) manifest; other kinds get a note. */
export function readKubernetesManifest(file: string, text: string): ReadStopSetups {
  const lines = new LineCounter();
  const docs = parseAllDocuments(text, { lineCounter: lines, logLevel: 'error' });
  if (!Array.isArray(docs)) throw notYaml(file, 'not a YAML stream');
  const setups: StopSetup[] = [];
  const notes: string[] = [];
  docs.forEach((doc, index) => {
    if (doc.errors.length > 0) throw notYaml(file, doc.errors[0]!.message.split('\n')[0]!);
    const value = doc.toJS() as unknown;
    if (value === null || value === undefined) return;
    const kind = (value as { kind?: unknown }).kind;
    const placeOf = (path: Path, fallback: Place): Place => {
      const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
      return node?.range ? { file, line: lines.linePos(node.range[0]).line } : fallback;
    };
    const rawName = (value as { metadata?: { name?: unknown } }).metadata?.name ?? '?';
    const name = typeof rawName === 'object' ? undefined : String(rawName);
    if (name === undefined)
      throw new ProxyopsError(
        'DEPLOY_CHECK_INPUT_INVALID',
        `${file}:${placeOf(['metadata', 'name'], { file, line: 1 }).line}: metadata.name is not a name`,
      );
    if (typeof kind !== 'string' || !WORKLOAD_KINDS.has(kind)) {
      notes.push(
        `${file}: document ${index + 1} (${typeof kind === 'string' ? `kind ${kind}` : 'no kind'} ${name}) ignored: only Deployment and StatefulSet are checked`,
      );
      return;
    }
    setups.push(
      ...readPodTemplate(doc, `${kind}/${name}`, placeOf, {
        file,
        line: placeOf(['kind'], { file, line: 1 }).line,
      }),
    );
  });
  return { setups, notes };
}

function readPodTemplate(
  doc: Document.Parsed,
  workload: string,
  placeOf: (path: Path, fallback: Place) => Place,
  place: Place,
): StopSetup[] {
  const pod: Path = ['spec', 'template', 'spec'];
  const containers = doc.getIn([...pod, 'containers']);
  if (!isSeq(containers)) return [];
  const gracePlace = placeOf([...pod, 'terminationGracePeriodSeconds'], place);
  const graceSeconds = whole(
    doc.getIn([...pod, 'terminationGracePeriodSeconds']),
    gracePlace,
    'terminationGracePeriodSeconds',
    0,
    KUBERNETES_DEFAULTS.terminationGracePeriodSeconds,
  );
  return containers.items.flatMap((item, i) => {
    if (!isMap(item)) return [];
    const c = item.toJSON() as {
      name?: string;
      ports?: unknown[];
      readinessProbe?: { periodSeconds?: unknown; failureThreshold?: unknown };
      lifecycle?: { preStop?: { sleep?: { seconds?: unknown } }; stopSignal?: string };
    };
    const at: Path = [...pod, 'containers', i];
    const containerPlace = placeOf(at, place);
    const probe = c.readinessProbe;
    const probePlace = (key: string) => placeOf([...at, 'readinessProbe', key], containerPlace);
    const sleepSeconds = c.lifecycle?.preStop?.sleep?.seconds;
    if (sleepSeconds !== undefined)
      whole(
        sleepSeconds,
        placeOf([...at, 'lifecycle', 'preStop', 'sleep', 'seconds'], containerPlace),
        'lifecycle.preStop.sleep.seconds',
        0,
        0,
      );
    const signal =
      c.lifecycle?.stopSignal === undefined ? undefined : normalizeSignal(c.lifecycle.stopSignal);
    return [
      {
        source: 'kubernetes',
        name: `${workload} container ${c.name ?? i}`,
        place: containerPlace,
        ...(probe
          ? {
              readiness: {
                periodMs:
                  whole(
                    probe.periodSeconds,
                    probePlace('periodSeconds'),
                    'readinessProbe.periodSeconds',
                    1,
                    KUBERNETES_DEFAULTS.periodSeconds,
                  ) * 1000,
                threshold: whole(
                  probe.failureThreshold,
                  probePlace('failureThreshold'),
                  'readinessProbe.failureThreshold',
                  1,
                  KUBERNETES_DEFAULTS.failureThreshold,
                ),
                place: placeOf([...at, 'readinessProbe'], containerPlace),
              },
            }
          : {}),
        preStopSleepMs: preStopSleepMs(c.lifecycle?.preStop),
        ...(c.lifecycle?.preStop === undefined
          ? {}
          : { preStopPlace: placeOf([...at, 'lifecycle', 'preStop'], containerPlace) }),
        servesTraffic: probe !== undefined || (Array.isArray(c.ports) && c.ports.length > 0),
        stopTimeoutMs: graceSeconds * 1000,
        stopTimeoutPlace: gracePlace,
        stopTimeoutName: 'terminationGracePeriodSeconds',
        ...(signal
          ? {
              stopSignal: signal,
              stopSignalPlace: placeOf([...at, 'lifecycle', 'stopSignal'], containerPlace),
              stopSignalName: 'lifecycle.stopSignal',
            }
          : {}),
      } satisfies StopSetup,
    ];
  });
}

/**
 * A whole-number field (Kubernetes' seconds and thresholds are integers), its default when left out;
 * anything else is bad input naming the field, so no NaN reaches a finding.
 */
function whole(raw: unknown, place: Place, key: string, min: number, fallback: number): number {
  if (raw === undefined || raw === null) return fallback;
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < min)
    throw new ProxyopsError(
      'DEPLOY_CHECK_INPUT_INVALID',
      `${place.file}:${place.line}: ${key} is ${JSON.stringify(raw)}, not a whole number of at least ${min}`,
    );
  return raw;
}

function notYaml(file: string, why: string): ProxyopsError {
  return new ProxyopsError('DEPLOY_CHECK_INPUT_INVALID', `${file}: cannot read it as YAML (${why})`);
}
