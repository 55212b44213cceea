// A blue/green stack as its owner would run it: API instances under a real supervisord, one program
// per address of each blue/green pair (per variant: `app`, `slow`, …), nginx in front listing both
// addresses of every pair, and a spec whose hooks call supervisorctl. Plain JavaScript, so that the
// deploy tests and `npm run bench:gates` (which runs without a TypeScript loader) share it.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** A supervisord value: `%` starts its interpolation. */
const sv = (value) => String(value).replaceAll('%', '%%');

/** A port of `host` free right now. */
function freePortOf(host) {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, host, () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

async function isServing(url, boundMs) {
  for (const until = Date.now() + boundMs; Date.now() < until; await sleep(100)) {
    const status = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.status,
      () => 0,
    );
    if (status === 200) return true;
  }
  return false;
}

/**
 * Starts supervisord with, for every host and both ports of its pair, one program per variant
 * (`VARIANT-HOST-PORT`, the API with the variant's environment added), the first address of each pair
 * running the `app` variant, and nginx on `nginxPort` serving the spec's config applied to `target`
 * (without `nginxPort`, no nginx: the caller runs its own, such as a hand-written tree's).
 */
export async function startSupervisedPairs({ cli, databaseUrl, hosts, nginxPort, variants, deploy = {} }) {
  const root = mkdtempSync(join(tmpdir(), 'proxyops-supervised-'));
  chmodSync(root, 0o755);
  for (const dir of ['logs', 'temp']) mkdirSync(join(root, dir), { mode: 0o755 });
  const target = join(root, 'config');
  const conf = join(root, 'supervisord.conf');
  const pairs = {};
  for (const host of hosts) {
    let a = await freePortOf(host);
    let b = await freePortOf(host);
    while (a === b) b = await freePortOf(host);
    pairs[host] = [a, b];
  }
  const all = { app: {}, ...variants };
  const programsOf = (variantEnvs) =>
    Object.entries(variantEnvs).flatMap(([variant, env]) =>
      hosts.flatMap((host) =>
        pairs[host].flatMap((port) => {
          const vars = {
            DATABASE_URL: databaseUrl,
            PROXYOPS_RATE_LIMIT: '10000000',
            PROXYOPS_PROXY_KEEP_ALIVE_MS: '2000',
            PROXYOPS_HEALTH_INTERVAL_MS: '500',
            PROXYOPS_HEALTH_THRESHOLD: '2',
            PROXYOPS_DRAIN_MARGIN_MS: '500',
            ...env,
          };
          return [
            `[program:${variant}-${host}-${port}]`,
            `command=${sv(process.execPath)} ${sv(cli)} api --seed --host ${host} --port ${port} --drain hand-over`,
            `environment=${Object.entries(vars)
              .map(([k, v]) => `${k}="${sv(v)}"`)
              .join(',')}`,
            'autostart=false',
            'autorestart=false',
            'startsecs=1',
            'stopsignal=TERM',
            'stopwaitsecs=30',
            `stdout_logfile=${sv(join(root, 'logs', `${variant}-${host}-${port}.log`))}`,
            'redirect_stderr=true',
          ];
        }),
      ),
    );
  const writeConf = () =>
    writeFileSync(
      conf,
      [
        '[unix_http_server]',
        `file=${sv(join(root, 'supervisor.sock'))}`,
        'chmod=0700',
        '[supervisord]',
        `logfile=${sv(join(root, 'logs', 'supervisord.log'))}`,
        `pidfile=${sv(join(root, 'supervisord.pid'))}`,
        `childlogdir=${sv(join(root, 'logs'))}`,
        '[rpcinterface:supervisor]',
        'supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface',
        '[supervisorctl]',
        `serverurl=unix://${sv(join(root, 'supervisor.sock'))}`,
        ...programsOf(all),
        '',
      ].join('\n'),
    );
  writeConf();
  const supervisorctl = (...args) => spawnSync('supervisorctl', ['-c', conf, ...args], { encoding: 'utf8' });
  const supervisord = spawn('supervisord', ['-n', '-c', conf], { stdio: 'ignore' });
  const nginxConf = join(target, 'current', 'nginx.conf');
  const stop = async () => {
    supervisorctl('stop', 'all');
    supervisord.kill('SIGTERM');
    if (supervisord.exitCode === null) await new Promise((resolve) => supervisord.once('exit', resolve));
    spawnSync('nginx', ['-p', `${root}/`, '-c', nginxConf, '-s', 'stop'], { stdio: 'ignore' });
    rmSync(root, { recursive: true, force: true });
  };
  const names = Object.keys(all);
  // Whichever variant runs at the address is the one stopped: a deploy of `app` replaces a `slow` one.
  const stopHook = [
    'sh',
    '-c',
    'c=$1; shift; for p in "$@"; do supervisorctl -c "$c" status "$p" | grep -q RUNNING && exec supervisorctl -c "$c" stop "$p"; done; exit 0',
    'stop',
    conf,
    ...names.map((name) => `${name}-{host}-{port}`),
  ];
  /** Writes a spec whose start hook starts `variant`'s program (the stop hook stops any); returns its path. */
  const writeSpec = (variant) => {
    const path = join(root, `spec-${variant}.json`);
    const spec = {
      version: 1,
      paths: { pidFile: join(root, 'nginx.pid'), tempDir: join(root, 'temp') },
      workers: { processes: 2 },
      accessLog: { path: join(root, 'logs', 'access.log'), buffer: null, flush: null },
      errorLog: { path: join(root, 'logs', 'error.log') },
      upstreams: {
        app: {
          servers: hosts.map((host) => ({
            host,
            port: pairs[host][0],
            alternate: pairs[host][1],
            maxFails: 1,
            failTimeout: 1,
          })),
          keepaliveTimeout: 2,
          healthCheck: { interval: 0.5, failureThreshold: 2, margin: 0.5 },
          deploy: {
            readyTimeout: 60,
            stopTimeout: 30,
            ...deploy,
            start: ['supervisorctl', '-c', conf, 'start', `${variant}-{host}-{port}`],
            stop: stopHook,
          },
        },
      },
      servers: [
        {
          names: ['localhost', '127.0.0.1'],
          listen: [{ address: '127.0.0.1', port: nginxPort }],
          routes: [{ path: '/', upstream: 'app' }],
        },
      ],
    };
    writeFileSync(path, `${JSON.stringify(spec, null, 2)}\n`);
    return path;
  };
  try {
    for (let tries = 0; !/^\d+$/.test(supervisorctl('pid').stdout.trim()); tries++) {
      if (tries > 300) throw new Error('supervisord did not come up');
      await sleep(100);
    }
    for (const host of hosts) {
      const started = supervisorctl('start', `app-${host}-${pairs[host][0]}`);
      if (started.status !== 0) throw new Error(`supervisorctl start: ${started.stdout}${started.stderr}`);
      if (!(await isServing(`http://${host}:${pairs[host][0]}/health/ready`, 60_000)))
        throw new Error(`app-${host}-${pairs[host][0]} did not become ready`);
    }
    if (nginxPort !== undefined) {
      const applied = spawnSync(
        process.execPath,
        [cli, 'config', 'apply', '--spec', writeSpec('app'), '--target', target],
        {
          encoding: 'utf8',
        },
      );
      if (applied.status !== 0) throw new Error(`config apply: ${applied.stderr}`);
      const nginx = spawnSync(
        'nginx',
        ['-p', `${root}/`, '-c', nginxConf, '-e', join(root, 'logs', 'error.log')],
        {
          encoding: 'utf8',
        },
      );
      if (nginx.status !== 0) throw new Error(`nginx: ${nginx.stderr}`);
      if (!(await isServing(`http://127.0.0.1:${nginxPort}/health/ready`, 30_000)))
        throw new Error('nginx does not serve the upstream');
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    root,
    target,
    pairs,
    accessLog: join(root, 'logs', 'access.log'),
    writeSpec,
    supervisorctl: (...args) => supervisorctl(...args).stdout,
    /** Changes the environment of a variant named at the start (its programs must not be running). */
    setVariant(name, env) {
      if (!(name in all) || name === 'app') throw new Error(`no variant ${name}`);
      all[name] = env;
      writeConf();
      supervisorctl('reread');
      supervisorctl('update');
    },
    stop,
  };
}
