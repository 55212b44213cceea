import { readFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectLogFormat, sampleLines } from '../../../proxy-config/core/logs/detect-log-format.js';
import {
  COMBINED_LOG_FORMAT,
  INGRESS_NGINX_LOG_FORMAT,
  MAIN_LOG_FORMAT,
} from '../../../proxy-config/core/logs/log-format-presets.js';
import type { StatsSummary } from '../../../proxy-config/core/logs/summarize-stats.js';
import { chooseLogFormat } from '../../../proxy-config/logs/choose-log-format.js';
import { computeLogStats, resolveLogFormat } from '../../../proxy-config/logs/logs-stats.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { rawGet, sendRaw } from '../../support/raw-traffic.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

const quoted = (format: string) => `'${format}'`;

/**
 * The access-log formats people copy, each as its `log_format` is published (quoted parts as written:
 * nginx joins them with nothing between), and what a reader can know from it.
 */
const COPIED: Array<{ name: string; directive: string; split: boolean; detected: string }> = [
  {
    // https://www.nginx.com/blog/using-nginx-logging-for-application-performance-monitoring/ (no space before rt=)
    name: 'upstream_time',
    directive: `log_format upstream_time '$remote_addr - $remote_user [$time_local] '
      '"$request" $status $body_bytes_sent '
      '"$http_referer" "$http_user_agent"'
      'rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"';`,
    split: true,
    detected: 'upstream-time',
  },
  {
    // The same, as most copies fix it: a space before rt=.
    name: 'upstream_time_spaced',
    directive: `log_format upstream_time_spaced '$remote_addr - $remote_user [$time_local] '
      '"$request" $status $body_bytes_sent '
      '"$http_referer" "$http_user_agent" '
      'rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time"';`,
    split: true,
    detected: 'upstream-time-spaced',
  },
  {
    // nginx's conf/nginx.conf and the nginx.org packages' /etc/nginx/nginx.conf: `main` (the live
    // nginx's http block defines it, as those files do).
    name: 'main',
    directive: '',
    split: false,
    detected: 'main',
  },
  {
    // Debian's /etc/nginx/nginx.conf: `access_log /var/log/nginx/access.log;`, nginx's built-in combined.
    name: 'combined',
    directive: '',
    split: false,
    detected: 'combined',
  },
  {
    // ingress-nginx's default log-format-upstream; its own variables are stood in for by maps.
    name: 'upstreaminfo',
    directive: `map $host $proxy_upstream_name { default default-app-80; }
      map $host $proxy_alternative_upstream_name { default ""; }
      map $request_id $req_id { default $request_id; }
      log_format upstreaminfo ${quoted(INGRESS_NGINX_LOG_FORMAT)};`,
    split: false,
    detected: 'ingress-nginx',
  },
  {
    // `combined` + $upstream_response_time: timed_combined, e.g. https://m.yisu.com/zixun/300890.html
    name: 'timed_combined',
    directive: `log_format timed_combined '$remote_addr - $remote_user [$time_local] '
      '"$request" $status $body_bytes_sent '
      '"$http_referer" "$http_user_agent" '
      '$request_time $upstream_response_time $pipe';`,
    split: false,
    detected: 'common',
  },
  {
    // https://gist.github.com/burdandrei/3482a590c3be2c9beabed42efa080a7e ("ready to be sent Logstash/Graylog/Splunk")
    name: 'json',
    directive: `log_format json escape=json
      '{ "msec": "$msec", '
      '"remote_addr": "$remote_addr", '
      '"request_method": "$request_method", '
      '"request_uri": "$request_uri", '
      '"status": "$status", '
      '"body_bytes_sent": "$body_bytes_sent", '
      '"http_referer": "$http_referer", '
      '"http_user_agent": "$http_user_agent", '
      '"request_time": "$request_time" , '
      '"http_x_forwarded_for": "$http_x_forwarded_for", '
      '"upstream_addr": "$upstream_addr",'
      '"upstream_response_time": "$upstream_response_time"}';`,
    split: false,
    detected: 'json',
  },
  {
    // https://gist.github.com/phiresky/3a1489697a97ed6a4020b5d2818a2f21 ("Log as much information as possible in nginx to json format")
    name: 'json_combined',
    directive: `log_format json_combined escape=json
      '{'
      '"time_iso8601":"$time_iso8601", "remote_addr":"$remote_addr", "remote_user":"$remote_user", "request":"$request",'
      '"status": "$status", "body_bytes_sent":"$body_bytes_sent", "request_time":"$request_time","http_host":"$http_host","host":"$host",'
      '"args":"$args",'
      '"connection":"$connection","content_length":"$content_length","content_type":"$content_type","uri":"$uri","request_filename":"$request_filename",'
      '"http_referrer":"$http_referer", "http_user_agent":"$http_user_agent",'
      '"upstream_connect_time": "$upstream_connect_time", "upstream_response_time":"$upstream_response_time"'
      '}';`,
    split: false,
    detected: 'json',
  },
  {
    // https://www.dev-toolbox.tech/tools/nginx-config-generator/examples/log-format-customization (numbers unquoted)
    name: 'json_numbers',
    directive: `log_format json_numbers escape=json
      '{'
      '"time":"$time_iso8601",'
      '"remote_addr":"$remote_addr",'
      '"request":"$request",'
      '"status":$status,'
      '"body_bytes_sent":$body_bytes_sent,'
      '"request_time":$request_time,'
      '"upstream_response_time":"$upstream_response_time",'
      '"http_referrer":"$http_referer",'
      '"http_user_agent":"$http_user_agent"'
      '}';`,
    split: false,
    detected: 'json',
  },
];

/** What the test sends, by status: 200s from the upstream, 502s (one from the app), a 504, a 413, a 499. */
const SENT = { '200': 3, '413': 1, '499': 1, '502': 3, '504': 1 };
/** Of those, what nginx made itself (no response header from an upstream). */
const MADE_BY_NGINX = { '413': 1, '499': 1, '502': 2, '504': 1 };
const RETURNED = { '200': 3, '502': 1 };

describe('access logs in the formats people copy, written by a real nginx', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  const logOf = (name: string) => join(nginx.prefix, 'logs', `${name}.log`);

  beforeAll(async () => {
    app = await startUpstreamApp();
    const port = await freePort();
    const dead = await freePort();
    nginx = await startLiveNginx(
      `
      ${COPIED.map((c) => c.directive).join('\n')}
      server {
        listen 127.0.0.1:${port};
        ${COPIED.map((c) => `access_log ${join('logs', `${c.name}.log`)}${c.name === 'combined' ? '' : ` ${c.name}`};`).join('\n')}
        client_max_body_size 1k;
        proxy_read_timeout 1s;
        location / { proxy_pass http://127.0.0.1:${app.port}; }
        location /refused { proxy_pass http://127.0.0.1:${dead}; }
      }`,
      { logFormat: MAIN_LOG_FORMAT },
    );
    const send = (request: string) => sendRaw(port, request);
    for (const path of ['/a', '/b', '/c']) expect(await send(rawGet(path))).toBe(200);
    expect(await send(rawGet('/status/502'))).toBe(502);
    expect(await send(rawGet('/refused/1'))).toBe(502);
    expect(await send(rawGet('/refused/2'))).toBe(502);
    expect(await send(rawGet('/slow?ms=3000'))).toBe(504);
    const body = 'x'.repeat(4096);
    expect(
      await send(
        `POST /upload HTTP/1.1\r\nHost: corpus\r\nConnection: close\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
      ),
    ).toBe(413);
    // The client gives up once the upstream holds the request: nginx logs 499.
    const seen = app.seen.length;
    const socket = connect(port, '127.0.0.1');
    socket.write(rawGet('/slow?ms=2000'));
    for (let i = 0; i < 500 && !app.seen.slice(seen).some((r) => r.url === '/slow?ms=2000'); i++)
      await sleep(20);
    socket.destroy();
    const total = Object.values(SENT).reduce((a, b) => a + b, 0);
    const lines = async (name: string) =>
      (await readFile(logOf(name), 'utf8').catch(() => '')).split('\n').filter(Boolean).length;
    for (let i = 0; i < 200; i++) {
      const counts = await Promise.all(COPIED.map((c) => lines(c.name)));
      if (counts.every((n) => n >= total)) break;
      await sleep(50);
    }
  }, 60_000);

  afterAll(async () => {
    await nginx?.stop();
    await app?.close();
  });

  const check = (summary: StatsSummary, split: boolean) => {
    expect(summary.malformed.count).toBe(0);
    expect(summary.status).toEqual(SENT);
    if (split) {
      expect(summary.proxyGenerated?.status).toEqual(MADE_BY_NGINX);
      expect(summary.upstreamReturned?.status).toEqual(RETURNED);
    } else {
      // What the format cannot tell stays unknown, never a confident count.
      expect(summary.proxyGenerated).toBeNull();
      expect(summary.upstreamReturned).toBeNull();
    }
  };

  for (const copied of COPIED) {
    it(`${copied.name}: the running config's format is chosen, and each class is counted as sent`, async () => {
      const { choice } = await chooseLogFormat([logOf(copied.name)], {}, undefined);
      expect(choice.source).toMatch(/^running nginx/);
      expect(choice.spec.name).toBe(copied.name);
      if (copied.name === 'combined') expect(choice.spec).toMatchObject({ format: COMBINED_LOG_FORMAT });
      check(await computeLogStats({ inputs: [logOf(copied.name)], spec: choice.spec }), copied.split);
    });

    it(`${copied.name}: --nginx-conf --format-name reads it as the running config does`, async () => {
      const spec = await resolveLogFormat({ nginxConf: nginx.target.confPath, formatName: copied.name });
      check(await computeLogStats({ inputs: [logOf(copied.name)], spec }), copied.split);
    });

    it(`${copied.name}: --nginx-conf alone takes the format of the access_log line that writes the file`, async () => {
      const { choice } = await chooseLogFormat(
        [logOf(copied.name)],
        { nginxConf: nginx.target.confPath },
        undefined,
      );
      expect(choice.spec.name).toBe(copied.name);
      check(await computeLogStats({ inputs: [logOf(copied.name)], spec: choice.spec }), copied.split);
    });

    it(`${copied.name}: without the running nginx, detection finds ${copied.detected} and the same counts`, async () => {
      const text = await readFile(logOf(copied.name), 'latin1');
      const detection = detectLogFormat(sampleLines(text));
      expect(detection.spec?.name).toBe(copied.detected);
      check(await computeLogStats({ inputs: [logOf(copied.name)], spec: detection.spec! }), copied.split);
    });
  }

  it('--nginx-conf alone refuses files of two formats, and a file no access_log line writes', async () => {
    const [a, b] = COPIED;
    await expect(
      chooseLogFormat([logOf(a!.name), logOf(b!.name)], { nginxConf: nginx.target.confPath }, undefined),
    ).rejects.toThrow(/the inputs are written in 2 formats/);
    await expect(
      chooseLogFormat([nginx.target.confPath], { nginxConf: nginx.target.confPath }, undefined),
    ).rejects.toThrow(/no access_log line writes .*; give --format-name NAME/);
  });
});
