import { describe, expect, it } from 'vitest';
import {
  ADOPTED_LOG_FORMAT,
  checkWatchSight,
  chooseWatch,
  watchRefusal,
  ROLLBACK_BLIND,
  judgeWatchSight,
  READINESS_ONLY,
  unseenBy,
  type LiveLogs,
  type WatchSightInput,
} from '../../../proxy-config/core/deploy/watch-sight.js';
import { liveLogsOf, servedAccessLogFiles } from '../../../proxy-config/core/deploy/live-logs.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import type { NginxConfig } from '../../../proxy-config/core/nginx-config/types.js';
import {
  PROXYOPS_LOG_FORMAT_TEXT,
  PROXYOPS_LOG_FORMAT_TEXT_1,
} from '../../../proxy-config/core/render/log-formats.js';

const LOG = '/var/log/app/access.log';

/** The running nginx of `text` as the deploy reads it, for upstream `app`; `same` are the spellings of LOG. */
function live(text: string, same: string[] = [LOG]): LiveLogs {
  const config: NginxConfig = {
    mainFile: '/etc/nginx/nginx.conf',
    files: ['/etc/nginx/nginx.conf'],
    directives: parseNginxConfig(text, '/etc/nginx/nginx.conf'),
  };
  const master = { pid: 4242, configFile: '/etc/nginx/nginx.conf', prefix: '/etc/nginx' };
  return liveLogsOf(config, master, 'app', new Set(same));
}

const proxyopsFormat = `log_format proxyops_text '${PROXYOPS_LOG_FORMAT_TEXT}';`;

function judge(over: Partial<WatchSightInput>) {
  return judgeWatchSight({
    path: LOG,
    spec: { format: 'text', buffered: false, flushMs: null },
    watchMs: 5_000,
    maxWatchMs: 60_000,
    slots: false,
    latencyGate: true,
    ...over,
  });
}

describe('can the deploy watch see the new instance?', () => {
  it('sees in proxyops’s own format, read with proxyops’s reader, with nothing unseen', () => {
    const sight = judge({ live: live(`http { ${proxyopsFormat} access_log ${LOG} proxyops_text; }`) });
    expect(sight).toEqual({ blind: [], unseen: [], reader: { preset: 'text' }, logDelayMs: 0 });
  });

  it('is blind on a combined log: no $upstream_addr, so the new instance’s requests cannot be told apart', () => {
    const sight = judge({ live: live(`http { access_log ${LOG} combined; }`) });
    expect(sight.blind.map((c) => c.what)).toEqual([
      `access_log ${LOG} at /etc/nginx/nginx.conf:1 uses log_format combined, which has no $upstream_addr: the new instance's requests cannot be told from the others'`,
    ]);
    // `access_log PATH;` names no format: nginx's combined.
    expect(judge({ live: live(`http { access_log ${LOG}; }`) }).blind).toHaveLength(1);
  });

  it('behind a hand-written config names a log_format to copy, which the watch then reads', () => {
    const blind = judge({ live: live(`http { access_log ${LOG} combined; }`), adopted: true });
    expect(blind.blind.map((c) => c.fix)).toEqual([
      `log $status and $upstream_addr to ${LOG} (and $request_time for the latency gate), for example: ${ADOPTED_LOG_FORMAT}; access_log ${LOG} upstreams;`,
    ]);
    expect(blind.blind[0]!.fix).not.toContain('config apply renders');
    // In the refusal the directive's own `;` ends the fix: no `;;` before the next clause.
    expect(watchRefusal(blind, 'gates')?.message).toContain(
      `access_log ${LOG} upstreams; or deploy with --watch readiness-only`,
    );
    const copied = judge({ live: live(`http { ${ADOPTED_LOG_FORMAT}; access_log ${LOG} upstreams; }`) });
    expect(copied.blind).toEqual([]);
    expect(copied.unseen).toEqual([]);
  });

  it('is blind when a server writes the same file in another format than the http block', () => {
    const sight = judge({
      live: live(
        `http { ${proxyopsFormat} access_log ${LOG} proxyops_text; server { access_log ${LOG} combined; } }`,
      ),
    });
    expect(sight.blind.map((c) => c.what)).toEqual([
      expect.stringContaining('uses log_format combined, which has no $upstream_addr'),
      `${LOG} is written in 2 formats (proxyops_text at /etc/nginx/nginx.conf:1, combined at /etc/nginx/nginx.conf:1); the watch reads one`,
    ]);
  });

  it('reads a hand-written format with the upstream fields in that format', () => {
    const format = '$remote_addr [$time_local] "$request" $status $request_time $upstream_addr';
    const sight = judge({ live: live(`http { log_format up '${format}'; access_log ${LOG} up; }`) });
    expect(sight.blind).toEqual([]);
    expect(sight.reader).toEqual({ format: { kind: 'format', name: 'up', format, escape: 'default' } });
  });

  it('reads proxyops’s current and previous formats together (old workers keep the old one)', () => {
    const sight = judge({
      live: live(
        `http { ${proxyopsFormat} log_format old '${PROXYOPS_LOG_FORMAT_TEXT_1}'; access_log ${LOG} proxyops_text; server { access_log ${LOG} old; } }`,
      ),
    });
    expect(sight.blind).toEqual([]);
    expect(sight.reader).toEqual({ preset: 'text' });
  });

  it('names what a readable format does not log: request times, and the instance behind a slot', () => {
    const sight = judge({
      slots: true,
      live: live(`http { log_format up '$status $upstream_addr'; access_log ${LOG} up; }`),
    });
    expect(sight.blind).toEqual([]);
    expect(sight.unseen).toEqual([
      'log_format up has no $request_time: request times are not judged',
      "log_format up has no $upstream_http_x_proxyops_instance: behind a slot the new process's requests are not told from the old one's (the whole window is read as the new one's)",
    ]);
    // The latency gate turned off asks for no request times.
    expect(
      judge({
        latencyGate: false,
        live: live(`http { log_format up '$status $upstream_addr'; access_log ${LOG} up; }`),
      }).unseen,
    ).toEqual([]);
  });

  it('is blind when the running nginx writes no access log to that file', () => {
    const sight = judge({ live: live(`http { access_log /var/log/nginx/other.log combined; }`) });
    expect(sight.blind.map((c) => c.what)).toEqual([
      `the nginx running (pid 4242, /etc/nginx/nginx.conf) writes no access log of upstream requests to ${LOG} (it writes /var/log/nginx/other.log)`,
    ]);
  });

  it('is blind on a buffer flushed later than the watch can wait, never, or gzip; widens windows by a flush within it', () => {
    const at = (params: string, over: Partial<WatchSightInput> = {}) =>
      judge({ live: live(`http { ${proxyopsFormat} access_log ${LOG} proxyops_text ${params}; }`), ...over });
    expect(at('buffer=64k flush=5s')).toMatchObject({ blind: [], logDelayMs: 5_000 });
    // The spec's default (buffer 64k, flush 5) with a shorter watch: the window grows by the flush.
    expect(at('buffer=64k flush=5s', { watchMs: 2_000 })).toMatchObject({ blind: [], logDelayMs: 5_000 });
    expect(at('buffer=64k flush=30s')).toMatchObject({ blind: [], logDelayMs: 30_000 });
    expect(at('buffer=64k flush=2m').blind.map((c) => c.what)).toEqual([
      `access_log ${LOG} at /etc/nginx/nginx.conf:1 is flushed every 120 s (accessLog.flush), longer than the watch can wait (60 s: deploy.maxWatch, or the longest watch of a round)`,
    ]);
    // An alternate path's watch lasts at least fail_timeout: a flush within it is seen.
    expect(at('buffer=64k flush=2m', { retryMs: 180_000 }).blind).toEqual([]);
    expect(at('buffer=64k flush=2m', { maxWatchMs: 0 }).blind).toHaveLength(1);
    expect(at('buffer=64k').blind.map((c) => c.what)).toEqual([
      `access_log ${LOG} at /etc/nginx/nginx.conf:1 is buffered without accessLog.flush: its lines reach the file only when the buffer fills`,
    ]);
    expect(at('gzip flush=1s').blind.map((c) => c.what)).toEqual([
      `access_log ${LOG} at /etc/nginx/nginx.conf:1 is gzip-compressed`,
    ]);
  });

  it('names flush= for a hand-written format and accessLog.flush for the spec’s', () => {
    const own = `log_format mine '$remote_addr $status $upstream_addr $request_time';`;
    const sight = judge({ live: live(`http { ${own} access_log ${LOG} mine buffer=64k flush=2m; }`) });
    expect(sight.blind.map((c) => c.fix)).toEqual([
      'set flush= to at most 60 s, or a longer deploy.maxWatch',
    ]);
    const spec = judge({ spec: { format: 'text', buffered: true, flushMs: 120_000 } });
    expect(spec.blind.map((c) => c.fix)).toEqual([
      'set accessLog.flush to at most 60 s, or a longer deploy.maxWatch',
    ]);
  });

  it('without a running nginx judges the spec’s own log, and says the running one was not read', () => {
    const sight = judge({ notRead: 'no nginx master runs behind /run/nginx.pid' });
    expect(sight.blind).toEqual([]);
    expect(sight.unseen).toEqual([
      "the running nginx was not read (no nginx master runs behind /run/nginx.pid): the log's format and buffering are the spec's",
    ]);
    expect(judge({ spec: { format: 'json', buffered: true, flushMs: 2_000 } })).toMatchObject({
      blind: [],
      reader: { preset: 'json' },
      logDelayMs: 2_000,
    });
    expect(judge({ spec: { format: 'text', buffered: true, flushMs: null } }).blind).toHaveLength(1);
  });

  it('is blind with deploy.watch 0: nothing is watched', () => {
    expect(judge({ watchMs: 0 }).blind.map((c) => c.what)).toEqual(['deploy.watch is 0: nothing is watched']);
  });

  it('a gated watch that cannot see refuses in one line with the fix; readiness-only runs and names itself first', () => {
    const sight = judge({ live: live(`http { access_log ${LOG} combined; }`) });
    const refusal = (() => {
      try {
        checkWatchSight(sight, 'gates');
      } catch (error) {
        return error as { code: string; message: string };
      }
    })();
    expect(refusal?.code).toBe('WATCH_BLIND');
    expect(refusal?.message).not.toContain('\n');
    expect(refusal?.message).toMatch(
      /^the deploy watch cannot judge the new instance: .*combined, which has no \$upstream_addr.*; log \$status and \$upstream_addr to .*; or deploy with --watch readiness-only/,
    );
    expect(() => checkWatchSight(sight, 'readiness-only')).not.toThrow();
    expect(unseenBy(sight, 'readiness-only')).toEqual([READINESS_ONLY, sight.blind[0]!.what]);
    expect(unseenBy(sight, 'gates')).toEqual([]);
    expect(() => checkWatchSight(judge({}), 'gates')).not.toThrow();
  });

  it('a rollback with a blind watch is not refused: it runs readiness-only and names why on every verdict', () => {
    const sight = judge({ live: live(`http { access_log ${LOG} combined; }`) });
    expect(() => chooseWatch(sight, 'gates', false)).toThrow(/cannot judge the new instance/);
    expect(chooseWatch(sight, 'gates', true)).toEqual({
      mode: 'readiness-only',
      unseen: [ROLLBACK_BLIND, READINESS_ONLY, sight.blind[0]!.what],
    });
    // A rollback that can see is gated as any deploy.
    const sees = judge({ live: live(`http { ${proxyopsFormat} access_log ${LOG} proxyops_text; }`) });
    expect(chooseWatch(sees, 'gates', true)).toEqual({ mode: 'gates', unseen: [] });
  });
});

/** An http block on several lines (so each directive has its own line): the format, `body`, upstream app. */
const http = (...body: string[]) =>
  ['http {', `  ${proxyopsFormat}`, '  upstream app { server 127.0.0.1:3001; }', ...body, '}'].join('\n');
const proxied = 'location / { proxy_pass http://app; }';

describe('which access logs hold the upstream’s requests (nginx’s access_log inheritance)', () => {
  it('is blind when the proxying server turns the log off', () => {
    const sight = judge({
      live: live(
        http(
          `  access_log ${LOG} proxyops_text;`,
          '  server {',
          '    access_log off;',
          `    ${proxied}`,
          '  }',
        ),
      ),
    });
    expect(sight.blind.map((c) => c.what)).toEqual([
      `the nginx running (pid 4242, /etc/nginx/nginx.conf) writes no access log of upstream requests to ${LOG} (location / at /etc/nginx/nginx.conf:7 (access_log off at /etc/nginx/nginx.conf:6))`,
    ]);
  });

  it('is blind when the proxying server has its own access_log elsewhere: the http one is not inherited', () => {
    const sight = judge({
      live: live(
        http(
          `  access_log ${LOG} proxyops_text;`,
          '  server {',
          '    access_log /var/log/nginx/other.log proxyops_text;',
          `    ${proxied}`,
          '  }',
        ),
      ),
    });
    expect(sight.blind.map((c) => c.what)).toEqual([
      `the nginx running (pid 4242, /etc/nginx/nginx.conf) writes no access log of upstream requests to ${LOG} (location / at /etc/nginx/nginx.conf:7 (its access_log in effect writes /var/log/nginx/other.log))`,
    ]);
  });

  it('judges what a conditional log writes, and names the requests it skips', () => {
    const sight = judge({
      live: live(http(`  access_log ${LOG} proxyops_text if=$loggable;`, `  server { ${proxied} }`)),
    });
    expect(sight.blind).toEqual([]);
    expect(sight.unseen).toEqual([
      `access_log ${LOG} at /etc/nginx/nginx.conf:4 logs only when $loggable holds: requests it skips are not seen`,
    ]);
  });

  it('judges the logged paths when one proxying server logs nothing, and names that one', () => {
    const sight = judge({
      live: live(
        http(
          `  access_log ${LOG} proxyops_text;`,
          `  server { ${proxied} }`,
          `  server { listen 8081; access_log off; ${proxied} }`,
        ),
      ),
    });
    expect(sight.blind).toEqual([]);
    expect(sight.unseen).toEqual([
      `requests through location / at /etc/nginx/nginx.conf:6 (access_log off at /etc/nginx/nginx.conf:6) are not logged to ${LOG}`,
    ]);
  });

  it('ignores a server that never proxies to the upstream (a stub_status page writing the file in combined)', () => {
    const sight = judge({
      live: live(
        http(
          `  access_log ${LOG} proxyops_text;`,
          `  server { ${proxied} }`,
          `  server { listen 8082; access_log ${LOG} combined; location /status { stub_status; } }`,
        ),
      ),
    });
    expect(sight).toMatchObject({ blind: [], unseen: [], reader: { preset: 'text' } });
  });

  it('collects the writers of every spelling of the file (a link and its target)', () => {
    const running = live(
      http(
        `  access_log /srv/link/access.log proxyops_text;`,
        '  server {',
        `    ${proxied}`,
        `    location /b { access_log ${LOG} combined; proxy_pass http://app; }`,
        '  }',
      ),
      [LOG, '/srv/link/access.log'],
    );
    expect(running.writers.map((w) => w.where)).toEqual([
      '/etc/nginx/nginx.conf:4',
      '/etc/nginx/nginx.conf:7',
    ]);
    expect(judge({ live: running }).blind.map((c) => c.what)).toContain(
      `${LOG} is written in 2 formats (proxyops_text at /etc/nginx/nginx.conf:4, combined at /etc/nginx/nginx.conf:7); the watch reads one`,
    );
  });
});

describe('servedAccessLogFiles: the log a deploy behind a hand-written config watches', () => {
  const config = (text: string): NginxConfig => ({
    mainFile: '/etc/nginx/nginx.conf',
    files: ['/etc/nginx/nginx.conf'],
    directives: parseNginxConfig(text, '/etc/nginx/nginx.conf'),
  });

  it('is the access_log in effect where the upstream is served (the innermost level), not the http-wide one', () => {
    const text = `http {
      access_log /var/log/nginx/access.log;
      server { listen 80; access_log logs/app.log upstreamlog; location / { proxy_pass http://app; } }
      server { listen 81; location / { proxy_pass http://legacy_reports; } }
    }`;
    expect(servedAccessLogFiles(config(text), '/usr/share/nginx/', 'app')).toEqual([
      '/usr/share/nginx/logs/app.log',
    ]);
    expect(servedAccessLogFiles(config(text), '/usr/share/nginx/', 'legacy_reports')).toEqual([
      '/var/log/nginx/access.log',
    ]);
  });

  it('is nothing where no location names the upstream or its logging is off', () => {
    const text = 'http { server { listen 80; location / { access_log off; proxy_pass http://app; } } }';
    expect(servedAccessLogFiles(config(text), '/usr/share/nginx/', 'app')).toEqual([]);
    expect(servedAccessLogFiles(config(text), '/usr/share/nginx/', 'api')).toEqual([]);
  });
});
