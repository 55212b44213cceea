import { describe, expect, it } from 'vitest';
import { judgeHostsSight, type HostLog } from '../../../../proxy-config/core/deploy/fleet-sight.js';
import { liveLogsOf } from '../../../../proxy-config/core/deploy/live-logs.js';
import { checkWatchSight, type LiveLogs } from '../../../../proxy-config/core/deploy/watch-sight.js';
import { parseNginxConfig } from '../../../../proxy-config/core/nginx-config/parse-nginx-config.js';

const LOG = '/var/log/nginx/app.access.log';
const SITE = '/etc/nginx/sites-enabled/app';

/** The log_format every host should write: what the watch needs. */
const UPSTREAMS = `log_format upstreams '$remote_addr [$time_local] "$request" $status rt=$request_time ua="$upstream_addr"';`;
/** The same fields in another order: a reader of the first misreads it. */
const REORDERED = `log_format upstreams2 'ua="$upstream_addr" $status rt=$request_time "$request" $remote_addr [$time_local]';`;

/** What a host's running nginx writes to LOG for upstream `app`, its site at SITE. */
function live(formats: string, accessLog: string): LiveLogs {
  const text = `http { ${formats}\n upstream app { server 10.0.0.1:8080; }\n server { ${accessLog} location / { proxy_pass http://app; } } }`;
  const config = { mainFile: SITE, files: [SITE], directives: parseNginxConfig(text, SITE) };
  return liveLogsOf(
    config,
    { pid: 7, configFile: '/etc/nginx/nginx.conf', prefix: '/etc/nginx' },
    'app',
    new Set([LOG]),
  );
}

const host = (name: string, logs: LiveLogs, path = LOG): HostLog => ({
  host: name,
  path,
  logs: { live: logs },
});

const WATCH = {
  spec: { format: 'text' as const, buffered: false, flushMs: null },
  watchMs: 5_000,
  maxWatchMs: 60_000,
  slots: false,
  latencyGate: true,
  adopted: true,
};

describe('the watch across nginx hosts: every host judged, then as one', () => {
  it('sees when every host writes the log in one format, read with it, nothing named per host', () => {
    const logs = live(UPSTREAMS, `access_log ${LOG} upstreams;`);
    const sight = judgeHostsSight([host('web1', logs), host('web2', logs)], WATCH);
    expect(sight.blind).toEqual([]);
    expect(sight.unseen).toEqual([]);
    expect(sight.reader).toMatchObject({ format: { kind: 'format' } });
    expect(sight.logDelayMs).toBe(0);
  });

  it('is blind when the hosts write the log in different formats: one cause naming both hosts, formats and file:lines', () => {
    const sight = judgeHostsSight(
      [
        host('web1', live(UPSTREAMS, `access_log ${LOG} upstreams;`)),
        host('web2', live(REORDERED, `access_log ${LOG} upstreams2;`)),
      ],
      WATCH,
    );
    expect(sight.blind.map((c) => c.what)).toEqual([
      `the nginx hosts write the upstream's access log in 2 formats (web1: log_format upstreams at ${SITE}:3 to ${LOG}; web2: log_format upstreams2 at ${SITE}:3 to ${LOG}); the watch reads every host's lines with one`,
    ]);
    // The refusal is one line, with the fix.
    expect(() => checkWatchSight(sight, 'gates')).toThrow(
      /^the deploy watch cannot judge the new instance: the nginx hosts write .* formats \(web1: .*; web2: .*\).*write that log in one log_format on every nginx host/,
    );
    expect(() => checkWatchSight(sight, 'gates')).not.toThrow(/\n/);
  });

  it('one format under two names is one format', () => {
    const renamed = UPSTREAMS.replace('log_format upstreams ', 'log_format mine ');
    const sight = judgeHostsSight(
      [
        host('web1', live(UPSTREAMS, `access_log ${LOG} upstreams;`)),
        host('web2', live(renamed, `access_log ${LOG} mine;`)),
      ],
      WATCH,
    );
    expect(sight.blind).toEqual([]);
  });

  it('a host blind on its own blinds the watch, named; the other host is not', () => {
    const sight = judgeHostsSight(
      [
        host('web1', live(UPSTREAMS, `access_log ${LOG} upstreams;`)),
        host('web2', live('', `access_log ${LOG};`)),
      ],
      WATCH,
    );
    expect(sight.blind.map((c) => c.what)).toEqual([
      `on web2: access_log ${LOG} at ${SITE}:3 uses log_format combined, which has no $upstream_addr: the new instance's requests cannot be told from the others'`,
      expect.stringMatching(
        /^the nginx hosts write the upstream's access log in 2 formats \(web1: log_format upstreams .*; web2: log_format combined /,
      ),
    ]);
  });

  it('a host whose nginx writes no log of the upstream there is blind, and is not compared for its format', () => {
    const sight = judgeHostsSight(
      [
        host('web1', live(UPSTREAMS, `access_log ${LOG} upstreams;`)),
        host('web2', live(UPSTREAMS, 'access_log off;')),
      ],
      WATCH,
    );
    expect(sight.blind.map((c) => c.what)).toEqual([
      expect.stringMatching(
        /^on web2: the nginx running \(pid 7, \/etc\/nginx\/nginx.conf\) writes no access log/,
      ),
    ]);
  });

  it('the slowest flush decides the log delay; a flush too long on one host blinds it alone', () => {
    const flushed = (flush: string) =>
      live(UPSTREAMS, `access_log ${LOG} upstreams buffer=32k flush=${flush};`);
    const sight = judgeHostsSight([host('web1', flushed('1s')), host('web2', flushed('8s'))], WATCH);
    expect(sight).toMatchObject({ blind: [], logDelayMs: 8_000 });
    const late = judgeHostsSight([host('web1', flushed('1s')), host('web2', flushed('5m'))], WATCH);
    expect(late.blind.map((c) => c.what)).toEqual([
      expect.stringMatching(/^on web2: access_log .* is flushed every 300 s \(flush=\)/),
    ]);
  });

  it('says once what every host leaves unseen, and names the host where only some do', () => {
    const noTime = `log_format upstreams '$remote_addr "$request" $status ua="$upstream_addr"';`;
    const same = judgeHostsSight(
      [
        host('web1', live(noTime, `access_log ${LOG} upstreams;`)),
        host('web2', live(noTime, `access_log ${LOG} upstreams;`)),
      ],
      WATCH,
    );
    expect(same.unseen).toEqual(['log_format upstreams has no $request_time: request times are not judged']);
    const one = judgeHostsSight(
      [
        host('web1', live(UPSTREAMS, `access_log ${LOG} upstreams;`)),
        host('web2', live(UPSTREAMS, `access_log ${LOG} upstreams if=$loggable;`)),
      ],
      WATCH,
    );
    expect(one.unseen).toEqual([
      `on web2: access_log ${LOG} at ${SITE}:3 logs only when $loggable holds: requests it skips are not seen`,
    ]);
  });

  it('a host whose log was not read is judged by the spec, and compared as such', () => {
    const sight = judgeHostsSight(
      [
        host('web1', live(UPSTREAMS, `access_log ${LOG} upstreams;`)),
        { host: 'web2', path: LOG, logs: { notRead: 'no nginx master runs behind /run/nginx.pid' } },
      ],
      WATCH,
    );
    expect(sight.unseen).toEqual([expect.stringMatching(/^on web2: the running nginx was not read/)]);
    expect(sight.blind.map((c) => c.what)).toEqual([
      expect.stringMatching(
        /2 formats \(web1: log_format upstreams .*; web2: the spec's format assumed for .* \(not read: no nginx master/,
      ),
    ]);
  });
});
