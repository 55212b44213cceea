import { mkdtemp, mkdir, readFile, rm, writeFile, chmod } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { applyConfig } from '../../proxy-config/config/apply-config.js';
import { readLiveMasterPid } from '../../proxy-config/shell/nginx/nginx-master.js';
import {
  signalNginx,
  startNginx,
  testNginxConfig,
  type NginxTarget,
} from '../../proxy-config/shell/nginx/nginx-process.js';
import { reloadAndConfirm } from '../../proxy-config/shell/nginx/reload-nginx.js';

/** A real nginx on loopback, running from a throw-away prefix. */
export interface LiveNginx {
  prefix: string;
  target: NginxTarget;
  accessLog: string;
  errorLog: string;
  /** Replaces the `http {}` body and reloads; resolves once the new workers answer. */
  reload(httpBody: string): Promise<void>;
  /** Reloads the config file as it is on disk now; resolves once the new workers answer. */
  reloadAsWritten(): Promise<void>;
  readAccessLog(): Promise<string>;
  readErrorLog(): Promise<string>;
  stop(): Promise<void>;
}

/**
 * Writes a main config around `httpBody` (server and upstream blocks, which may use
 * `{{accessLog}}`/`{{errorLog}}`) and starts nginx with it. The access log is `logs/access.log`
 * in `log_format` `main` unless the body defines its own `access_log`.
 */
export async function startLiveNginx(
  httpBody: string,
  options: { logFormat?: string } = {},
): Promise<LiveNginx> {
  const prefix = await mkdtemp(join(tmpdir(), 'proxyops-nginx-'));
  // Workers run as `nobody` when the master is root: they must be able to traverse the prefix.
  await chmod(prefix, 0o755);
  await mkdir(join(prefix, 'logs'), { recursive: true });
  const accessLog = join(prefix, 'logs', 'access.log');
  const errorLog = join(prefix, 'logs', 'error.log');
  const confPath = join(prefix, 'nginx.conf');
  const target: NginxTarget = { confPath, prefix, startupErrorLog: errorLog };
  const logFormat =
    options.logFormat ??
    '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent "$http_referer" "$http_user_agent" rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time" ua="$upstream_addr" us="$upstream_status" rid=$request_id';

  const write = (body: string) =>
    writeFile(
      confPath,
      [
        'worker_processes 1;',
        `pid ${join(prefix, 'nginx.pid')};`,
        `error_log ${errorLog} info;`,
        'events { worker_connections 256; }',
        'http {',
        `  log_format main '${logFormat}';`,
        `  access_log ${accessLog} main;`,
        `  client_body_temp_path ${join(prefix, 'client_body')};`,
        `  proxy_temp_path ${join(prefix, 'proxy')};`,
        `  fastcgi_temp_path ${join(prefix, 'fastcgi')};`,
        `  uwsgi_temp_path ${join(prefix, 'uwsgi')};`,
        `  scgi_temp_path ${join(prefix, 'scgi')};`,
        body.replaceAll('{{accessLog}}', accessLog).replaceAll('{{errorLog}}', errorLog),
        '}',
        '',
      ].join('\n'),
    );

  await write(httpBody);
  await testNginxConfig(target);
  await startNginx(target);
  await waitForPidFile(join(prefix, 'nginx.pid'));

  const reloadAsWritten = async () => {
    await testNginxConfig(target);
    const masterPid = await readLiveMasterPid(join(prefix, 'nginx.pid'));
    if (masterPid === undefined) throw new Error(`nginx in ${prefix} is not running`);
    // A fixed sleep raced a loaded machine: wait until new workers run and the old ones stopped taking connections.
    await reloadAndConfirm(masterPid, errorLog, 30_000);
  };

  return {
    prefix,
    target,
    accessLog,
    errorLog,
    async reload(body) {
      await write(body);
      await reloadAsWritten();
    },
    reloadAsWritten,
    readAccessLog: () => readFile(accessLog, 'utf8').catch(() => ''),
    readErrorLog: () => readFile(errorLog, 'utf8').catch(() => ''),
    async stop() {
      await signalNginx(target, 'stop').catch(() => undefined);
      await waitForExit(join(prefix, 'nginx.pid'));
      await rm(prefix, { recursive: true, force: true });
    },
  };
}

/**
 * Applies `spec` with `config apply` to ROOT/conf (the spec's paths point into `runtime`) and starts
 * nginx on the live version, with `runtime` as its prefix; resolves once the master runs.
 */
export async function startAppliedNginx(root: string, runtime: string, spec: unknown): Promise<NginxTarget> {
  const specPath = join(root, 'spec.json');
  await writeFile(specPath, JSON.stringify(spec));
  const target = join(root, 'conf');
  await applyConfig({ specPath, target });
  const nginx: NginxTarget = {
    confPath: join(target, 'current', 'nginx.conf'),
    prefix: runtime,
    startupErrorLog: join(runtime, 'logs', 'error.log'),
  };
  await startNginx(nginx);
  for (let i = 0; i < 500 && !(await readLiveMasterPid(join(runtime, 'nginx.pid'))); i++) await sleep(20);
  return nginx;
}

// Bounds of 10 s: a daemonizing nginx on a loaded machine can take seconds to write or remove its pid file.
async function waitForPidFile(pidPath: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const pid = Number((await readFile(pidPath, 'utf8').catch(() => '')).trim());
    if (pid > 0) return;
    await sleep(20);
  }
  throw new Error(`nginx did not write ${pidPath}`);
}

async function waitForExit(pidPath: string): Promise<void> {
  for (let i = 0; i < 500; i++) {
    const pid = Number((await readFile(pidPath, 'utf8').catch(() => '')).trim());
    if (!pid) return;
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await sleep(20);
  }
}
