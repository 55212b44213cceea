import { describe, expect, it } from 'vitest';
import {
  accessLogFor,
  configuredLogs,
  liveLogPath,
  accessLogPathsOfOneFormat,
} from '../../../proxy-config/core/nginx-config/configured-logs.js';
import {
  parseConfigureArguments,
  parseMasterCommandLine,
} from '../../../proxy-config/core/nginx-config/master-command-line.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import type { NginxConfig } from '../../../proxy-config/core/nginx-config/types.js';

const config = (text: string): NginxConfig => ({
  mainFile: '/etc/nginx/nginx.conf',
  files: ['/etc/nginx/nginx.conf'],
  directives: parseNginxConfig(text, '/etc/nginx/nginx.conf'),
});

describe('a running nginx and the logs its config writes', () => {
  it('reads -p and -c from the master process title, in both spellings', () => {
    expect(
      parseMasterCommandLine(
        'nginx: master process /usr/sbin/nginx -p /srv/x/ -c /srv/x/nginx.conf -g daemon off;',
      ),
    ).toEqual({
      binary: '/usr/sbin/nginx',
      prefix: '/srv/x/',
      config: '/srv/x/nginx.conf',
    });
    expect(parseMasterCommandLine('nginx: master process nginx -c/etc/alt.conf')).toEqual({
      binary: 'nginx',
      prefix: null,
      config: '/etc/alt.conf',
    });
    expect(parseMasterCommandLine('nginx: worker process')).toBeNull();
    expect(
      parseConfigureArguments(
        'configure arguments: --prefix=/usr/share/nginx --conf-path=/etc/nginx/nginx.conf --pid-path=/run/nginx.pid',
      ),
    ).toEqual({ prefix: '/usr/share/nginx', config: '/etc/nginx/nginx.conf', pidFile: '/run/nginx.pid' });
  });

  it('finds the access_log writing a file (or the live log of a rotated copy) and its log_format', () => {
    const conf = config(`
      error_log logs/error.log;
      http {
        log_format main '$remote_addr [$time_local] "$request" $status';
        access_log /var/log/nginx/access.log;
        server { access_log /var/log/nginx/api.log main buffer=32k; access_log off; access_log syslog:server=x; }
      }`);
    expect(
      configuredLogs(conf, '/usr/share/nginx').map((log) => [log.kind, log.path, log.formatName]),
    ).toEqual([
      ['error', '/usr/share/nginx/logs/error.log', null],
      ['access', '/var/log/nginx/access.log', 'combined'],
      ['access', '/var/log/nginx/api.log', 'main'],
    ]);
    expect(accessLogFor(conf, '/', '/var/log/nginx/api.log.2.gz')?.spec).toMatchObject({ name: 'main' });
    expect(accessLogFor(conf, '/', '/var/log/nginx/access.log.1')?.spec).toMatchObject({ name: 'combined' });
    expect(accessLogFor(conf, '/', '/var/log/nginx/other.log')).toBeNull();
    expect(liveLogPath('/l/access.log.12.gz')).toBe('/l/access.log');
    // The names `logs rotate` gives, and logrotate's dateext.
    expect(liveLogPath('/l/mine.log.20261127-040145.gz')).toBe('/l/mine.log');
    expect(liveLogPath('/l/mine.log.20261127-040145.1')).toBe('/l/mine.log');
    expect(liveLogPath('/l/mine.log.20261127-040145')).toBe('/l/mine.log');
    expect(liveLogPath('/l/access.log-20261127.gz')).toBe('/l/access.log');
    expect(liveLogPath('/l/access.log')).toBe('/l/access.log');
  });
});

describe('accessLogPathsOfOneFormat', () => {
  const log = (path: string, formatName: string | null, kind: 'access' | 'error' = 'access') => ({
    kind,
    path,
    formatName,
    where: 'nginx.conf:1',
  });
  it('gives the access logs of one format (nginx default: combined), and refuses several formats by name', () => {
    expect(
      accessLogPathsOfOneFormat([
        log('/l/a.log', null),
        log('/l/b.log', 'combined'),
        log('/l/error.log', null, 'error'),
      ]),
    ).toEqual(['/l/a.log', '/l/b.log']);
    expect(() => accessLogPathsOfOneFormat([log('/l/a.log', null), log('/l/mine.log', 'mine')])).toThrow(
      'writes access logs in 2 formats (combined: /l/a.log; mine: /l/mine.log); give the files of one format to read',
    );
  });
});
