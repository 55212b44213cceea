import { parseNginxTime } from '../nginx-config/units.js';
import { isAlternateLine } from './alternate-marks.js';
import { lineBody, splitKeepingEnds } from './text-lines.js';
import type { NginxTree } from './tree.js';

/**
 * The parameter of a `server` line that keeps nginx from ever resting its address, or undefined:
 * `max_fails=0` turns the failure count off, and `fail_timeout=0` rests it for no time at all.
 */
export function neverRests(params: readonly string[]): 'max_fails=0' | 'fail_timeout=0' | undefined {
  const value = (name: string) => params.find((p) => p.startsWith(`${name}=`))?.slice(name.length + 1);
  const maxFails = value('max_fails');
  if (maxFails !== undefined && Number(maxFails) === 0) return 'max_fails=0';
  const failTimeout = value('fail_timeout');
  if (failTimeout !== undefined && parseNginxTime(failTimeout) === 0) return 'fail_timeout=0';
  return undefined;
}

/** Why an idle address nginx never rests costs something, for every warning that names one. */
export const RESTLESS_COST =
  'every request nginx sends there costs a refused connect and an error.log line until a deploy starts an instance on it';

/**
 * One warning line per line proxyops added (an alternate) whose parameters, copied from its
 * primary, keep nginx from resting it while nothing listens there. Not a refusal: the parameters
 * are the user's own.
 */
export function restlessAlternates(tree: NginxTree): string[] {
  return [...tree.files].flatMap(([file, text]) =>
    splitKeepingEnds(text).flatMap((line, i) => {
      if (!isAlternateLine(line)) return [];
      const statement = lineBody(line).split(';')[0]!.trim();
      const [, address, ...params] = statement.split(/\s+/);
      const param = neverRests(params);
      if (!param) return [];
      return [
        `warning: ${file}:${i + 1}: the alternate ${address} has ${param} (copied from its primary's line): nginx never rests it, so ${RESTLESS_COST}; give the primary's line ${param === 'max_fails=0' ? 'max_fails' : 'fail_timeout'} above 0 to have it rested (proxyops copies the parameters as they are)`,
      ];
    }),
  );
}
