import { describe, expect, it } from 'vitest';
import { accessLogsToRead } from '../../../proxy-config/core/diagnose/access-logs-to-read.js';
import { UPSTREAM_TIME_LOG_FORMAT } from '../../../proxy-config/core/logs/log-format-presets.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

const CONFIG = `http {
  log_format upstream_time '${UPSTREAM_TIME_LOG_FORMAT}';
  server {
    listen 80;
    access_log logs/plain.log;
    access_log logs/timed.log upstream_time;
    access_log logs/errors.log combined if=$loggable;
  }
  server {
    listen 81;
    access_log logs/other.log;
  }
}`;

describe('accessLogsToRead', () => {
  const config = {
    mainFile: 'nginx.conf',
    files: ['nginx.conf'],
    directives: parseNginxConfig(CONFIG, 'nginx.conf'),
  };

  it('reads one log of the lines in one block (the one whose format tells most), each block, and every if= log', () => {
    const { read, sameRequests } = accessLogsToRead(config, '/p');
    expect(read.map((log) => log.path)).toEqual([
      '/p/logs/timed.log',
      '/p/logs/errors.log',
      '/p/logs/other.log',
    ]);
    expect(sameRequests.map(({ log, readInstead }) => [log.path, log.where, readInstead.path])).toEqual([
      ['/p/logs/plain.log', 'nginx.conf:5', '/p/logs/timed.log'],
    ]);
  });
});
