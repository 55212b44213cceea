import { ProxyopsError } from '../errors.js';
import { normalizeSignal, parseDurationMs } from './parse-durations.js';
import type { Place, ReadStopSetups } from './stop-setup.js';

/** systemd's defaults (DefaultTimeoutStopSec=90s, KillSignal=SIGTERM). */
export const SYSTEMD_DEFAULTS = { timeoutStopMs: 90_000, killSignal: 'SIGTERM' };

/** True when the text looks like a unit file: a `[Service]` (or `[Unit]`) section header. */
export function looksLikeSystemdUnit(text: string): boolean {
  return /^\s*\[(Service|Unit)\]\s*$/m.test(text);
}

/**
 * The stop settings of a systemd service unit: TimeoutStopSec (or TimeoutSec, which sets it too;
 * `infinity` or 0: never killed) and KillSignal. A later assignment wins; an empty one resets.
 */
export function readSystemdUnit(file: string, text: string): ReadStopSetups {
  let section = '';
  let timeout: { ms: number | null; place: Place; name: string } | undefined;
  let signal: { value: string; place: Place } | undefined;
  let sawService = false;
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    const place = { file, line: index + 1 };
    if (line === '' || line.startsWith('#') || line.startsWith(';')) return;
    const header = /^\[([^\]]+)\]$/.exec(line);
    if (header) {
      section = header[1]!;
      if (section === 'Service') sawService = true;
      return;
    }
    const eq = line.indexOf('=');
    if (eq < 0)
      throw new ProxyopsError(
        'DEPLOY_CHECK_INPUT_INVALID',
        `${file}:${index + 1}: not a unit file line: ${line.slice(0, 60)}`,
      );
    if (section !== 'Service') return;
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1).trim();
    if (key === 'TimeoutStopSec' || key === 'TimeoutSec') {
      if (value === '') timeout = undefined;
      else if (value === 'infinity' || value === '0') timeout = { ms: null, place, name: key };
      else {
        const ms = parseDurationMs(value);
        if (ms === undefined) throw badValue(place, key, value);
        timeout = { ms, place, name: key };
      }
    } else if (key === 'KillSignal') {
      if (value === '') signal = undefined;
      else {
        const normal = normalizeSignal(value);
        if (normal === undefined) throw badValue(place, key, value);
        signal = { value: normal, place };
      }
    }
  });
  if (!sawService) return { setups: [], notes: [`${file}: no [Service] section: nothing to check`] };
  const unitPlace = { file, line: 1 };
  return {
    setups: [
      {
        source: 'systemd',
        name: file.split('/').at(-1)!,
        place: unitPlace,
        servesTraffic: true,
        stopTimeoutMs: timeout ? timeout.ms : SYSTEMD_DEFAULTS.timeoutStopMs,
        stopTimeoutPlace: timeout?.place ?? unitPlace,
        stopTimeoutName: timeout?.name ?? 'TimeoutStopSec',
        stopSignal: signal?.value ?? SYSTEMD_DEFAULTS.killSignal,
        stopSignalPlace: signal?.place ?? unitPlace,
        stopSignalName: 'KillSignal',
      },
    ],
    notes: [],
  };
}

function badValue(place: Place, key: string, value: string): ProxyopsError {
  return new ProxyopsError(
    'DEPLOY_CHECK_INPUT_INVALID',
    `${place.file}:${place.line}: ${key}=${value} is not a value systemd accepts`,
  );
}
