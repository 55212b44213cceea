import {
  childrenNamed,
  effectiveProxyHeaders,
  locationMatch,
  walkDirectives,
} from '../../nginx-config/query.js';
import type { NginxDirective } from '../../nginx-config/types.js';
import { parseNginxTime } from '../../nginx-config/units.js';
import type { LintRule, RuleHit } from '../types.js';

/** nginx's default keepalive_requests since 1.19.10. */
const MIN_KEEPALIVE_REQUESTS = 1000;

/** Hits for every directive named `name` whose first argument is `value`. */
function directivesSetTo(name: string, value: string): LintRule['test'] {
  return (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d) => {
      if (d.name === name && d.args[0] === value)
        hits.push({ file: d.file, line: d.line, what: `${name} ${value}` });
    });
    return hits;
  };
}

/** gixy's proxy_pass_normalized (its merge_slashes part): `//admin` is no longer `/admin`. */
export const MERGE_SLASHES_OFF: LintRule = {
  id: 'merge-slashes-off',
  severity: 'warning',
  title: 'merge_slashes off',
  message:
    'With merge_slashes off, //admin/ no longer matches location /admin/: a deny, auth_request or rate limit written for /admin/ is skipped, and the request goes to location / and on to an application that treats //admin/ as /admin/.',
  fix: 'remove merge_slashes off (the default is on); if an upstream really needs the double slashes, pass $request_uri to that one location',
  runbook: null,
  test: directivesSetTo('merge_slashes', 'off'),
};

/** gixy's proxy_buffering_off. */
export const PROXY_BUFFERING_OFF: LintRule = {
  id: 'proxy-buffering-off',
  severity: 'warning',
  title: 'proxy_buffering off',
  message:
    "Without buffering nginx passes the response to the client at the client's pace: a slow or stalled client keeps the upstream connection (an app worker, a DB connection behind it) busy for as long as it reads, and proxy_cache and proxy_max_temp_file_size stop working. A few slow readers exhaust the app.",
  fix: 'keep proxy_buffering on; for streaming responses (SSE, long polling) have the app send X-Accel-Buffering: no on those responses only, or mark the location with # proxyops: ignore proxy-buffering-off',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      if (d.name === 'proxy_buffering' && d.args[0] === 'off' && !streams(chain))
        hits.push({ file: d.file, line: d.line, what: 'proxy_buffering off' });
    });
    return hits;
  },
};

/**
 * Words naming a streaming or long-poll endpoint (Server-Sent Events, WebSocket, a message bus, a
 * live feed), as locations, upstream names and hosts spell them: `/events/`, `sse_backend`,
 * `/message-bus/`, `/socket.io/`, `/cable`.
 */
const STREAMING_WORDS =
  /(?:^|[^a-z])(?:sse|events?|event-?stream|eventsource|stream|streaming|streams|websockets?|wss?|sockets?|sockjs|long-?poll(?:ing)?|poll(?:ing)?|subscribe|subscriptions?|pubsub|push|live|realtime|notifications?|message-?bus|bus|nchan|mqtt|cable|signalr|hub)(?:$|[^a-z])/i;

/** A proxy read timeout beside it this long is written for a response that stays open (long poll). */
const LONG_READ_MS = 300_000;

/**
 * True when the block that turns buffering off is evidently a streaming or long-poll endpoint: its
 * location (or an enclosing one) or its proxy_pass target names one, it passes a WebSocket upgrade,
 * or it sets a read timeout of minutes beside it. There the client must get each event as it is
 * written, which is what `proxy_buffering off` is for.
 */
function streams(chain: NginxDirective[]): boolean {
  const block = chain.at(-1);
  if (!block) return false;
  const names = chain.filter((level) => level.name === 'location').map((l) => locationMatch(l).path);
  for (const pass of childrenNamed(block, 'proxy_pass')) names.push(pass.args[0] ?? '');
  if (names.some((name) => STREAMING_WORDS.test(name))) return true;
  const upgrade = effectiveProxyHeaders(chain).get('upgrade');
  if (upgrade !== undefined && upgrade.toLowerCase().includes('$http_upgrade')) return true;
  const timeout = childrenNamed(block, 'proxy_read_timeout')[0]?.args[0];
  const ms = timeout === undefined ? undefined : parseNginxTime(timeout);
  return ms !== undefined && ms >= LONG_READ_MS;
}

/** gixy's low_keepalive_requests (client side only: inside `upstream` a low value is normal). */
export const KEEPALIVE_REQUESTS_LOW: LintRule = {
  id: 'keepalive-requests-low',
  severity: 'warning',
  title: 'keepalive_requests below 1000',
  message:
    'After keepalive_requests requests nginx closes the client connection. Below 1000 (the default since 1.19.10; 100 before), busy HTTP/1.1 and HTTP/2 clients reconnect and redo the TLS handshake every few seconds, and clients racing the close see failed requests. 0 closes after every request.',
  fix: 'remove it (default 1000) or keepalive_requests 1000;',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      if (d.name !== 'keepalive_requests' || chain.some((b) => b.name === 'upstream')) return;
      const value = Number(d.args[0]);
      if (Number.isInteger(value) && value < MIN_KEEPALIVE_REQUESTS)
        hits.push({ file: d.file, line: d.line, what: `keepalive_requests ${d.args[0] ?? ''}` });
    });
    return hits;
  },
};

/**
 * `location /static { root /app/static; }` (uvicorn's sample): root is joined with the whole URI, so
 * /static/app.css is looked for at /app/static/static/app.css. Prefix and exact locations only: a
 * regex location's path is no prefix of the URI.
 */
export const ROOT_REPEATS_LOCATION: LintRule = {
  id: 'root-repeats-location',
  severity: 'warning',
  title: 'root ends with the location path',
  message:
    "nginx looks a file up at root + the whole URI, location path included: with `location /static { root /app/static; }` a request for /static/app.css opens /app/static/static/app.css, and every file 404s unless that doubled directory exists. alias is the directive that replaces the location's path.",
  fix: 'root the parent (location /static { root /app; }) or use alias with matching slashes (location /static/ { alias /app/static/; })',
  runbook: null,
  test: (config) => {
    const hits: RuleHit[] = [];
    walkDirectives(config, (d, chain) => {
      const location = chain[chain.length - 1];
      if (d.name !== 'root' || location?.name !== 'location') return;
      const { modifier, path } = locationMatch(location);
      if (modifier !== '' && modifier !== '^~' && modifier !== '=') return;
      const tail = path.replace(/\/+$/, '');
      const root = (d.args[0] ?? '').replace(/\/+$/, '');
      if (tail === '' || tail.includes('$') || root.includes('$') || !root.endsWith(tail)) return;
      hits.push({
        file: d.file,
        line: d.line,
        directive: d,
        what: `root ${d.args[0] ?? ''} in location ${location.args.join(' ')}: ${path} is looked up at ${root}${tail}/…, the location path twice`,
      });
    });
    return hits;
  },
};
