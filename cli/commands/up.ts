import type { Command } from 'commander';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { parseNginxSize } from '../../proxy-config/core/nginx-config/units.js';
import { parseApiSettings } from '../parse-api-settings.js';
import { runAction } from '../run-action.js';

/** The seed data's admin (api/store/seed.ts), for the hint that reads /users. */
const SEED_ADMIN = '00000000-0000-4000-8000-000000000001';

interface UpFlags {
  dir: string;
  instances: string;
  port: string;
  healthInterval: string;
  healthThreshold: string;
  drainMargin: string;
  watch: string;
  max5xxIncrease: string;
  seed: boolean;
  logMaxSize: string;
  logKeep: string;
  slots: boolean;
  fresh: boolean;
  runtimeDir?: string;
  rateLimit?: string;
  rateWindowMs?: string;
  bodyLimit?: string;
  apiEnv: string[];
  databasePort?: string;
}

const collect = (value: string, previous: string[]) => [...previous, value];

function number(flag: string, raw: string, min: number, integer = false): number {
  const value = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(value) || value < min || (integer && !Number.isInteger(value)))
    throw new ProxyopsError(
      'BAD_OPTION',
      `${flag} ${JSON.stringify(raw)} must be ${integer ? 'a whole number' : 'a number'} of at least ${min}`,
    );
  return value;
}

/** A TCP port option: a whole number from 1 to 65535. */
function tcpPort(flag: string, raw: string): number {
  const value = number(flag, raw, 1, true);
  if (value > 65535) throw new ProxyopsError('BAD_OPTION', `${flag} ${raw} must be a port from 1 to 65535`);
  return value;
}

/** A size option (`16m`, `512k`, bytes), at least 1 KiB. */
function size(flag: string, raw: string): number {
  const value = parseNginxSize(raw);
  if (value === undefined || value < 1024)
    throw new ProxyopsError(
      'BAD_OPTION',
      `${flag} ${JSON.stringify(raw)} must be a size of at least 1k (e.g. 512k, 16m)`,
    );
  return value;
}

/** `proxyops up` and `proxyops down`: nginx in front of N API instances sharing one database. */
export function registerUp(program: Command): void {
  program
    .command('up')
    .description(
      'Run the local stack: nginx on 127.0.0.1:PORT in front of N API instances sharing one database (DATABASE_URL or an embedded PostgreSQL). Ctrl-C stops it',
    )
    .option('--instances <n>', 'API instances', '2')
    .option('--port <port>', 'nginx port on 127.0.0.1', '8080')
    .option('--dir <dir>', 'where the spec, config, logs and state go', '.proxyops')
    .option(
      '--database-port <port>',
      'port of the embedded PostgreSQL on 127.0.0.1 (default: one the system picks); printed at start',
    )
    .option('--health-interval <seconds>', 'readiness-check interval the drain wait is computed from', '1')
    .option('--health-threshold <n>', 'failed checks before a balancer takes an instance out', '2')
    .option('--drain-margin <seconds>', 'margin added to interval × threshold', '1')
    .option('--watch <seconds>', 'how long a deploy watches the status codes after each step', '3')
    .option(
      '--max-5xx-increase <fraction>',
      "a deploy rolls back above this significant rise of the new instance's 5xx share (the spec's deploy.max5xxIncrease)",
      '0.01',
    )
    .option('--no-seed', 'start with an empty database instead of the demo data')
    .option(
      '--fresh',
      'start the embedded database over: drop the data a previous up in --dir kept (DIR/database)',
    )
    .option(
      '--runtime-dir <dir>',
      "where the slots, nginx's temp files and the logs go (nginx's workers must reach it); default --dir, or /run/proxyops/HASH when they cannot reach --dir",
    )
    .option(
      '--log-max-size <size>',
      'rotate a log of the stack (nginx, instances) past this size (k, m, g)',
      '16m',
    )
    .option('--log-keep <n>', 'rotated copies kept of each log', '3')
    .option(
      '--rate-limit <n>',
      "the API's requests per client per window, for every instance up and deploy start",
    )
    .option('--rate-window-ms <n>', "the API's rate-limit window in milliseconds")
    .option('--body-limit <bytes>', "the API's largest accepted request body")
    .option(
      '--api-env <NAME=VALUE>',
      'any other API setting (e.g. PROXYOPS_PAGE_SIZE=50), repeatable; recorded in the stack state',
      collect,
      [],
    )
    .option(
      '--no-slots',
      'put the instances on TCP ports, replaced by config change and nginx reload, instead of unix-socket slots replaced without a reload',
    )
    .action((flags: UpFlags) =>
      runAction(async () => {
        const options = {
          dir: flags.dir,
          instances: number('--instances', flags.instances, 1, true),
          port: number('--port', flags.port, 1, true),
          ...(flags.databasePort === undefined
            ? {}
            : { databasePort: tcpPort('--database-port', flags.databasePort) }),
          healthCheck: {
            interval: number('--health-interval', flags.healthInterval, 0.001),
            failureThreshold: number('--health-threshold', flags.healthThreshold, 1, true),
            margin: number('--drain-margin', flags.drainMargin, 0),
          },
          watch: number('--watch', flags.watch, 0),
          max5xxIncrease: number('--max-5xx-increase', flags.max5xxIncrease, 0),
          seed: flags.seed,
          logRotation: {
            maxBytes: size('--log-max-size', flags.logMaxSize),
            keep: number('--log-keep', flags.logKeep, 1, true),
          },
          slots: flags.slots,
          fresh: flags.fresh === true,
          ...(flags.runtimeDir === undefined ? {} : { runtimeDir: flags.runtimeDir }),
          apiSettings: parseApiSettings('--api-env', [
            ...(flags.rateLimit === undefined ? [] : [`PROXYOPS_RATE_LIMIT=${flags.rateLimit}`]),
            ...(flags.rateWindowMs === undefined ? [] : [`PROXYOPS_RATE_WINDOW_MS=${flags.rateWindowMs}`]),
            ...(flags.bodyLimit === undefined ? [] : [`PROXYOPS_BODY_LIMIT=${flags.bodyLimit}`]),
            ...flags.apiEnv,
          ]),
          ...(process.env.REDIS_URL ? { redisUrl: process.env.REDIS_URL } : {}),
          ...(process.env.DATABASE_URL ? { databaseUrl: process.env.DATABASE_URL } : {}),
        };
        const { startStack } = await import('../../proxy-config/stack/up.js');
        const say = (line: string) => process.stdout.write(`${line}\n`);
        // A closed output (`proxyops up | tee log`: Ctrl-C ends tee too) must not kill this process
        // before it has stopped what it started: write errors (EPIPE) are dropped.
        process.stdout.removeAllListeners('error').on('error', () => undefined);
        process.stderr.on('error', () => undefined);
        // Listen before starting anything: Ctrl-C (or proxyops down) during the start stops the stack
        // once it is up, and a second Ctrl-C does not kill this process half-way through stopping.
        let requestStop: (signal: NodeJS.Signals) => void = () => undefined;
        const stopRequested = new Promise<NodeJS.Signals>((resolve) => (requestStop = resolve));
        process.on('SIGINT', (signal) => requestStop(signal));
        process.on('SIGTERM', (signal) => requestStop(signal));
        const stack = await startStack({ ...options, say });
        const { invokedName } = await import('../invoked-name.js');
        const name = invokedName();
        const instances = stack.state.upstreams.api ?? [];
        say('');
        say(`proxyops local stack is up: ${stack.url}`);
        say(`  try:     curl ${stack.url}/health/ready`);
        say(
          `           curl -H "authorization: Bearer $(${name} api token --user ${SEED_ADMIN} --role admin)" ${stack.url}/users`,
        );
        say(`  logs:    ${stack.state.stack!.logsDir}/access.log, error.log, instance-*.log`);
        if (stack.embeddedDatabaseUrl)
          say(`  database: ${stack.embeddedDatabaseUrl} (embedded; --database-port sets its port)`);
        say(
          `  instances: ${instances.map((i) => `${i.slot === undefined ? `${i.host}:${i.port}` : `unix:${i.slot}`} (pid ${i.pid})`).join(', ')}`,
        );
        say(
          `  deploy:  ${name} deploy --dir ${flags.dir}   (plan first: ${name} deploy plan --dir ${flags.dir})`,
        );
        say(`  stop:    Ctrl-C, or ${name} down --dir ${flags.dir}`);
        // Nothing else may hold the event loop (an external database, detached instances): wait for a signal.
        const keepAlive = setInterval(() => undefined, 60_000);
        const signal = await stopRequested;
        clearInterval(keepAlive);
        say(`\n${signal}: stopping nginx, then the instances, then the database`);
        await stack.stop();
        say('stopped');
        return 0;
      }),
    );

  program
    .command('down')
    .description('Stop the local stack started by proxyops up: nginx, then the instances, then the database')
    .option('--dir <dir>', 'directory of the local stack', '.proxyops')
    .action((flags: { dir: string }) =>
      runAction(async () => {
        const { stopStack } = await import('../../proxy-config/stack/up.js');
        const say = (line: string) => process.stdout.write(`${line}\n`);
        say((await stopStack(flags.dir, say)) ? 'stopped' : `nothing runs from ${flags.dir}`);
      }),
    );
}
