import { isMap, LineCounter, parseDocument } from 'yaml';
import { ProxyopsError } from '../errors.js';
import { normalizeSignal, parseDurationMs } from './parse-durations.js';
import type { Place, ReadStopSetups, StopSetup } from './stop-setup.js';

/** Docker's defaults: 10 s between the stop signal and SIGKILL, SIGTERM, healthcheck every 30 s, 3 retries. */
export const COMPOSE_DEFAULTS = {
  stopGracePeriodMs: 10_000,
  stopSignal: 'SIGTERM',
  intervalMs: 30_000,
  retries: 3,
};

/**
 * Images of databases, caches and brokers, by name without registry, path or tag: their clients
 * connect straight to them, not through the balancer, and SIGQUIT is not their graceful stop.
 */
const DATASTORE_IMAGE =
  /^(postgres(ql)?|postgis|timescaledb(-ha)?|mysql|mariadb|percona(-server)?|redis(-stack(-server)?)?|valkey|keydb|memcached|rabbitmq|mongo(db)?|elasticsearch|opensearch|kafka|zookeeper|nats|etcd|cassandra|clickhouse(-server)?|couchdb|influxdb)$/;

/** `postgres` from `docker.io/library/postgres:16-alpine@sha256:…` or `bitnami/postgresql:16`. */
function imageName(image: string): string {
  return image.split('@')[0]!.split('/').at(-1)!.split(':')[0]!.toLowerCase();
}

interface ComposeService {
  image?: unknown;
  stop_grace_period?: unknown;
  stop_signal?: unknown;
  ports?: unknown[];
  expose?: unknown[];
  healthcheck?: { disable?: boolean; test?: unknown; interval?: unknown; retries?: unknown };
}

/**
 * The stop settings of each service of a compose file: stop_grace_period, stop_signal, and the
 * healthcheck (interval × retries is how long a balancer reading Docker's health takes to notice).
 * Only a service a balancer sends to is judged against the drain: one that publishes or exposes
 * ports or has a healthcheck, and whose image is not a database, cache or broker; the others (a
 * worker, postgres) get a note and only the check that their stop signal can be handled.
 */
export function readComposeFile(file: string, text: string): ReadStopSetups {
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, logLevel: 'error' });
  const services = doc.get('services');
  if (!isMap(services))
    throw new ProxyopsError('DEPLOY_CHECK_INPUT_INVALID', `${file}: no services in this compose file`);
  const placeOf = (path: string[], fallback: Place): Place => {
    const node = doc.getIn(path, true) as { range?: [number, number, number] } | undefined;
    return node?.range ? { file, line: lines.linePos(node.range[0]).line } : fallback;
  };
  const setups: StopSetup[] = [];
  const notes: string[] = [];
  for (const pair of services.items) {
    const name = String((pair.key as { value?: unknown })?.value ?? pair.key);
    const service = (isMap(pair.value) ? pair.value.toJSON() : {}) as ComposeService;
    const at = ['services', name];
    const place = placeOf(at, { file, line: 1 });
    const grace =
      service.stop_grace_period === undefined
        ? undefined
        : duration(
            service.stop_grace_period,
            placeOf([...at, 'stop_grace_period'], place),
            'stop_grace_period',
          );
    const signal =
      service.stop_signal === undefined ? undefined : normalizeSignal(String(service.stop_signal));
    if (service.stop_signal !== undefined && signal === undefined)
      throw invalid(
        placeOf([...at, 'stop_signal'], place),
        `stop_signal ${String(service.stop_signal)} is not a signal`,
      );
    const check = service.healthcheck;
    const healthy =
      check && check.disable !== true && !(Array.isArray(check.test) && check.test[0] === 'NONE');
    const image = typeof service.image === 'string' ? service.image : undefined;
    const datastore = image !== undefined && DATASTORE_IMAGE.test(imageName(image));
    const hasPorts = [service.ports, service.expose].some((list) => Array.isArray(list) && list.length > 0);
    const servesTraffic = !datastore && (hasPorts || Boolean(healthy));
    if (datastore)
      notes.push(
        `${file}: service ${name} (image ${image}) not checked against the drain: a database, cache or broker is not behind the balancer`,
      );
    else if (!servesTraffic)
      notes.push(
        `${file}: service ${name} not checked against the drain: no ports, expose or healthcheck, so no balancer sends to it`,
      );
    setups.push({
      source: 'compose',
      name: `service ${name}`,
      place,
      ...(healthy
        ? {
            readiness: {
              periodMs:
                check.interval === undefined
                  ? COMPOSE_DEFAULTS.intervalMs
                  : duration(check.interval, placeOf([...at, 'healthcheck', 'interval'], place), 'interval'),
              threshold:
                check.retries === undefined
                  ? COMPOSE_DEFAULTS.retries
                  : count(check.retries, placeOf([...at, 'healthcheck', 'retries'], place), 'retries'),
              place: placeOf([...at, 'healthcheck'], place),
            },
          }
        : {}),
      servesTraffic,
      stopTimeoutMs: grace ?? COMPOSE_DEFAULTS.stopGracePeriodMs,
      stopTimeoutPlace: grace === undefined ? place : placeOf([...at, 'stop_grace_period'], place),
      stopTimeoutName: 'stop_grace_period',
      stopSignal: signal ?? COMPOSE_DEFAULTS.stopSignal,
      stopSignalPlace: signal === undefined ? place : placeOf([...at, 'stop_signal'], place),
      stopSignalName: 'stop_signal',
    });
  }
  return { setups, notes };
}

function duration(raw: unknown, place: Place, key: string): number {
  const ms = typeof raw === 'string' || typeof raw === 'number' ? parseDurationMs(String(raw)) : undefined;
  if (ms === undefined)
    throw invalid(place, `${key} ${JSON.stringify(raw)} is not a duration (such as 30s or 1m30s)`);
  return ms;
}

function count(raw: unknown, place: Place, key: string): number {
  if (typeof raw !== 'number' || !Number.isInteger(raw) || raw < 1)
    throw invalid(place, `${key} ${JSON.stringify(raw)} is not a whole number of at least 1`);
  return raw;
}

function invalid(place: Place, why: string): ProxyopsError {
  return new ProxyopsError('DEPLOY_CHECK_INPUT_INVALID', `${place.file}:${place.line}: ${why}`);
}
