import { listUpstreams } from '../nginx-config/query.js';
import type { NginxConfig } from '../nginx-config/types.js';

/** What the live nginx runs, read from its master (its main file by `nginx -T`) before and during a deploy. */
export interface LiveNginxPicture {
  pid: number;
  /** Its main config file (`-c`). */
  configFile: string;
  /** The addresses its upstream lists, as written; undefined when its config has no such upstream. */
  servers: string[] | undefined;
  /** Its main file's text as `nginx -T` shows it. */
  mainText: string;
  /** True when its main file is the target's `current` one (the same file, through any links). */
  followsTarget: boolean;
  /** Behind a hand-written config: true when its main file is that config's (the same file, through any links). */
  runsAdopted?: boolean;
}

/** One address the plan takes nginx to list. */
export interface PlannedServer {
  address: string;
  /** Set for the idle address of a blue/green pair: the address it is the alternate of. */
  alternateOf?: string;
}

/** What a deploy's plan assumes of the live nginx, at its start or after one of its switches. */
export interface PlannedPicture {
  upstream: string;
  servers: PlannedServer[];
  target: string;
  /** The target's `current` main file (its path and text); undefined when nothing was applied there. */
  current: { file: string; text: string } | undefined;
  /** The plan changes nginx's config (the reload path): nginx must load what it applies to the target. */
  reloads: boolean;
  /** The hand-written main file the master must run (`nginx.conf` of the spec), in place of the target's `current`. */
  adopted?: string;
}

/**
 * The addresses of the `server` entries of http upstream `name`, as written; undefined when the
 * config defines no such upstream.
 */
export function upstreamServers(config: NginxConfig, name: string): string[] | undefined {
  const block = listUpstreams(config).get(name);
  if (!block) return undefined;
  return (block.children ?? []).filter((d) => d.name === 'server' && d.args[0]).map((d) => d.args[0]!);
}

/**
 * An address compared by what it names: `unix:PATH` as is, else host (brackets off, lower case)
 * and port (nginx's default 80 when none is written).
 */
export function serverKey(address: string): string {
  if (address.startsWith('unix:')) return address;
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(address);
  if (bracketed) return `${bracketed[1]!.toLowerCase()} ${bracketed[2] ?? '80'}`;
  const colon = address.lastIndexOf(':');
  const port = colon > 0 ? address.slice(colon + 1) : '';
  // `::1:3002` (an IPv6 host written without brackets, as toAddress does) ends in its port too.
  if (colon > 0 && /^\d+$/.test(port)) return `${address.slice(0, colon).toLowerCase()} ${port}`;
  return `${address.toLowerCase()} 80`;
}

/**
 * Where the live nginx and the plan disagree, as one line naming both pictures; undefined when
 * nginx runs the target's current config and its upstream lists exactly the addresses the plan
 * assumes. Text is compared, not paths: a master started on another file of the same text runs
 * the same config (unless the plan reloads: nginx then must read the target's next version).
 */
export function compareLiveWithPlan(live: LiveNginxPicture, plan: PlannedPicture): string | undefined {
  const master = `nginx master ${live.pid} (-c ${live.configFile})`;
  const found: string[] = [];
  if (plan.adopted !== undefined) {
    if (!live.runsAdopted) found.push(`${master} does not run ${plan.adopted} (nginx.conf of the spec)`);
  } else if (!plan.current)
    found.push(`${plan.target} holds no applied config (no current), while ${master} runs its own`);
  else if (plan.current.text !== live.mainText)
    found.push(
      `${master} runs another config than ${plan.current.file} (${firstDifference(live.mainText, plan.current.text)})`,
    );
  else if (plan.reloads && !live.followsTarget)
    found.push(
      `${master} runs a copy of ${plan.current.file}, not the file itself: the reloads of this deploy would not load the versions it applies`,
    );
  const assumed = plan.servers.map(
    (s) => `${s.address}${s.alternateOf === undefined ? '' : ` (alternate of ${s.alternateOf})`}`,
  );
  if (live.servers === undefined)
    found.push(`${master} has no upstream ${plan.upstream}; the plan assumes it lists ${assumed.join(', ')}`);
  else {
    const listed = new Set(live.servers.map(serverKey));
    const planned = new Set(plan.servers.map((s) => serverKey(s.address)));
    const missing = plan.servers.filter((s) => !listed.has(serverKey(s.address)));
    const extra = live.servers.filter((address) => !planned.has(serverKey(address)));
    if (missing.length > 0 || extra.length > 0) {
      const what = [
        ...(missing.length > 0 ? [`not listed there: ${missing.map((s) => s.address).join(', ')}`] : []),
        ...(extra.length > 0 ? [`not in the plan: ${extra.join(', ')}`] : []),
      ].join('; ');
      found.push(
        `upstream ${plan.upstream} of ${master} lists ${live.servers.join(', ') || 'no server'}; the plan assumes ${assumed.join(', ')} (${what})`,
      );
    }
  }
  return found.length === 0 ? undefined : found.join('; ');
}

/** The first line two texts differ on, quoted (long lines cut), for a message. */
function firstDifference(live: string, current: string): string {
  const a = live.split('\n');
  const b = current.split('\n');
  let at = 0;
  while (at < a.length && at < b.length && a[at] === b[at]) at++;
  const quote = (line: string | undefined) =>
    line === undefined
      ? 'its end'
      : JSON.stringify(line.trim().length > 60 ? `${line.trim().slice(0, 57)}...` : line.trim());
  return `line ${at + 1} reads ${quote(a[at])} there, ${quote(b[at])} in current`;
}
