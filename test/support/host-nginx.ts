import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOG_FORMAT_PRESETS } from '../../proxy-config/core/logs/log-format-presets.js';
import type { TestHosts } from './ssh-hosts.js';

/**
 * Starts a stock nginx on a test host (in its namespaces, without SSH), writing the proxyops log
 * format to MOUNTPOINT/logs/access.log and its pid to MOUNTPOINT/run/nginx.pid; answers 204 on
 * 127.0.0.1:PORT there. Resolves once the pid file is written; killed at the hosts' teardown.
 */
export async function startHostNginx(hosts: TestHosts, name: string, port: number): Promise<void> {
  const { dir, mountPoint: mp } = hosts.host(name);
  for (const sub of ['run', 'temp', 'logs']) await mkdir(join(dir, sub), { recursive: true });
  const format = (LOG_FORMAT_PRESETS.proxyops as { format: string }).format;
  await writeFile(
    join(dir, 'nginx.conf'),
    `worker_processes 1;
pid ${mp}/run/nginx.pid;
error_log ${mp}/logs/error.log;
events { worker_connections 64; }
http {
  map $http_x_request_id $proxyops_request_id { default $request_id; }
  log_format proxyops '${format}';
  access_log ${mp}/logs/access.log proxyops;
  client_body_temp_path ${mp}/temp/body; proxy_temp_path ${mp}/temp/proxy;
  fastcgi_temp_path ${mp}/temp/fastcgi; uwsgi_temp_path ${mp}/temp/uwsgi; scgi_temp_path ${mp}/temp/scgi;
  server { listen 127.0.0.1:${port}; return 204; }
}
`,
  );
  hosts.spawnOn(name, ['nginx', '-p', mp, '-c', `${mp}/nginx.conf`, '-g', 'daemon off;']);
  const pidFile = join(dir, 'run', 'nginx.pid');
  for (let i = 0; i < 400; i++) {
    if (
      await readFile(pidFile, 'utf8').then(
        (text) => text.trim() !== '',
        () => false,
      )
    )
      return;
    await sleep(50);
  }
  throw new Error(`nginx on ${name} did not write ${pidFile}`);
}
