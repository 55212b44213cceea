import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyConfig } from '../config/apply-config.js';
import { toInstanceCommand } from '../core/deploy/instance-command.js';
import { LOCAL_UPSTREAM, planLocalStackSpec } from '../core/deploy/local-stack-spec.js';
import { toAddress } from '../core/deploy/plan-deploy.js';
import { ProxyopsError } from '../core/errors.js';
import { MAIN_CONFIG_FILE } from '../core/render/render-nginx-config.js';
import { stackTarget } from '../deploy/deploy-context.js';
import { startEmbeddedPostgres, type EmbeddedPostgres } from '../shell/embedded-postgres.js';
import { findListenerPid } from '../shell/process/find-listener-pid.js';
import {
  isProcessAlive,
  recordedStatus,
  startInstance,
  stopInstance,
} from '../shell/process/instance-process.js';
import { holdDeploys } from '../deploy/hold-deploys.js';
import { readChildPids, readLiveMasterPid } from '../shell/nginx/nginx-master.js';
import { startNginx } from '../shell/nginx/nginx-process.js';
import { ensureSystemPackages, SYSTEM_PACKAGES } from '../shell/system-packages.js';
import { readProcessIdentity } from '../shell/process/process-identity.js';
import { readSpecFile } from '../shell/read-spec-file.js';
import { startSlotInstance } from './start-slot-instance.js';
import { superviseInstances } from './supervise-instances.js';
import { rotateStackLogs, type SizeRotation } from '../shell/logs/rotate-by-size.js';
import {
  readStackState,
  removeStackState,
  writeStackState,
  type InstanceRecord,
  type StackState,
} from '../shell/stack-state.js';
import { removeSocketName } from '../shell/process/slot-socket.js';
import { linkStackLogs, prepareStackRuntimeDir } from '../shell/nginx/stack-runtime-dir.js';
import { pickFreePort, tryListen } from '../shell/process/tcp-accepting.js';
import { findWorkerUser } from '../shell/nginx/worker-access.js';
import { NGINX_DEFAULT_USER } from '../core/apply/worker-access.js';
import { waitUntilReady } from '../shell/process/wait-until-ready.js';

/** What `proxyops up` starts. Durations are seconds. */
export interface UpOptions {
  dir: string;
  instances: number;
  port: number;
  healthCheck: { interval: number; failureThreshold: number; margin: number };
  watch: number;
  max5xxIncrease: number | null;
  seed: boolean;
  /** Size rotation of the stack's logs (nginx's and the instances'); unbounded without it. */
  logRotation?: SizeRotation;
  /** Instances behind unix-socket upstream slots (replaced without a reload); false: TCP ports and reloads. */
  slots: boolean;
  /** The API's settings as its environment (PROXYOPS_RATE_LIMIT=…): every instance up and deploy start gets exactly these. */
  apiSettings: Record<string, string>;
  /** Redis for the instances' rate limits, recorded like the database. */
  redisUrl?: string;
  /** A PostgreSQL server shared by the instances; without it an embedded one is served, its data under `dir`. */
  databaseUrl?: string;
  /** The embedded database's port on 127.0.0.1 (`--database-port`); without it, one the system picks. */
  databasePort?: number;
  /** Start the embedded database empty, dropping the data a previous `up` in `dir` left. */
  fresh?: boolean;
  /** Where the slots, temp files and nginx's logs go instead of the directory `up` picks (`--runtime-dir`). */
  runtimeDir?: string;
  say?: (line: string) => void;
}

/** A running local stack. */
export interface RunningStack {
  url: string;
  target: string;
  state: StackState;
  /** The embedded database's URL (its port included); undefined with `databaseUrl`. */
  embeddedDatabaseUrl?: string;
  /** Stops restarting instances, then stops nginx, the instances and the database; leaves no process behind. */
  stop(): Promise<void>;
}

/** Connections each instance's pool opens to the shared database. */
const INSTANCE_DB_POOL = '4';
const NGINX_STOP_MS = 10_000;
/** Instances are stopped after nginx, so nothing routes to them: SIGINT skips their drain wait. */
const INSTANCE_STOP_SIGNAL = 'SIGINT';
const INSTANCE_STOP_MS = 12_000;
/** `up` stops nginx, then the instances (12 s at most each, in parallel), then the database. */
const SUPERVISOR_STOP_MS = 60_000;
/** How often the stack's log sizes are checked against the rotation size. */
const LOG_CHECK_MS = 2_000;

/** The CLI entry (`dist/cli/main.js`) the instances run, found from the build or the sources. */
function cliEntry(): string[] {
  const candidates = ['../../cli/main.js', '../../dist/cli/main.js'].map((p) =>
    fileURLToPath(new URL(p, import.meta.url)),
  );
  const found = candidates.find((path) => existsSync(path));
  if (!found)
    throw new ProxyopsError('NOT_BUILT', `no CLI build at ${candidates.join(' or ')}: run npm run build`);
  return [process.execPath, found];
}

/**
 * Starts the local stack: the database (embedded PGlite served over the wire protocol unless
 * `databaseUrl`), N API instances sharing it, and nginx rendered from a spec in front of them.
 * A failure stops whatever already started.
 */
export async function startStack(options: UpOptions): Promise<RunningStack> {
  const say = options.say ?? (() => undefined);
  const dir = resolve(options.dir);
  const target = stackTarget(dir);
  const existing = await readStackState(target);
  // Refused while the recorded `up` runs; a state from an older proxyops (no identity) while its pid lives.
  const recorded = existing?.stack;
  const running = recorded && (await supervisorStatus(recorded));
  if (running === 'ours' || (running === 'stranger' && !recorded?.supervisorIdentity))
    throw new ProxyopsError(
      'STACK_RUNNING',
      `a local stack already runs from ${dir} (pid ${recorded!.supervisorPid}); stop it with \`proxyops down --dir ${options.dir}\``,
    );
  if (existing) await stopStackProcesses(target, say);
  // A fresh machine gets nginx the way the test set-up gets it (root on Debian), or the exact command.
  // Not njs: the stack's own spec caches nothing, and a caching spec applied later names the package
  // it lacks (NGINX_MODULE_MISSING), so a user without root is not stopped for a module nobody loads.
  ensureSystemPackages([SYSTEM_PACKAGES.nginx], say);
  // Checked before anything starts: nginx would retry the bind for seconds and then fail.
  const listen = await tryListen('127.0.0.1', options.port);
  if (listen !== 'ok') throw await portRefusal('--port', options.port, listen);
  if (options.databasePort !== undefined) {
    if (options.databaseUrl)
      throw new ProxyopsError(
        'BAD_OPTION',
        '--database-port is the port of the embedded database, but DATABASE_URL names another server: give one of them',
      );
    if (options.databasePort === options.port)
      throw new ProxyopsError(
        'BAD_OPTION',
        `--database-port ${options.databasePort} is also --port: pick another`,
      );
    const free = await tryListen('127.0.0.1', options.databasePort);
    if (free !== 'ok') throw await portRefusal('--database-port', options.databasePort, free);
  }
  // nginx's workers open the slots, temp files and logs: checked as them before anything starts.
  const workers = await findWorkerUser();
  if (!workers)
    throw new ProxyopsError(
      'WORKERS_CANNOT_REACH',
      `nginx's workers would run as ${NGINX_DEFAULT_USER} (nginx's default under root), which has no account here; create it (useradd --system ${NGINX_DEFAULT_USER}) or run proxyops up as another user`,
    );
  for (const sub of ['', 'config']) {
    await mkdir(join(dir, sub), { recursive: true, mode: 0o755 });
    await chmod(join(dir, sub), 0o755);
  }
  const runtimeDir = await prepareStackRuntimeDir(dir, options.runtimeDir, workers);
  if (runtimeDir !== dir) {
    const linked = await linkStackLogs(dir, runtimeDir);
    say(
      `slots, temp files and logs in ${runtimeDir} (nginx's workers run as ${workers.name}, who cannot reach ${dir}); ${join(dir, 'logs')} ${linked ? 'links to its logs' : 'is a directory of older logs, left as it was'}`,
    );
  }
  const databaseDir = join(dir, 'database');
  if (options.fresh) {
    // Said out loud: the orders and users of every earlier run are gone for good.
    const had = await stat(databaseDir).then(
      () => true,
      () => false,
    );
    await rm(databaseDir, { recursive: true, force: true });
    say(
      had
        ? `--fresh: removed the earlier data in ${databaseDir}`
        : `--fresh: no earlier data in ${databaseDir}`,
    );
  }
  // The orders and users of the embedded database: only this user reads them.
  if (!options.databaseUrl) await mkdir(databaseDir, { recursive: true, mode: 0o700 });

  let database: EmbeddedPostgres | undefined;
  const stopAll = async () => {
    await stopStackProcesses(target, say);
    if (database) {
      say('stopping the embedded database');
      await database.stop();
      database = undefined;
    }
  };
  try {
    if (!options.databaseUrl)
      database = await startEmbeddedPostgres({
        host: '127.0.0.1',
        port: options.databasePort ?? 0,
        dataDir: databaseDir,
      });
    const databaseUrl = options.databaseUrl ?? database!.url;
    say(
      database
        ? `embedded database (PGlite) serving ${databaseUrl}, data in ${databaseDir}`
        : 'database: DATABASE_URL',
    );

    const ports: number[] = [];
    while (!options.slots && ports.length < options.instances) {
      const port = await pickFreePort('127.0.0.1');
      if (!ports.includes(port) && port !== options.port) ports.push(port);
    }
    const specPath = join(dir, 'spec.json');
    const slots = options.slots
      ? Array.from({ length: options.instances }, (_, i) => join(runtimeDir, 'slots', `slot-${i}.sock`))
      : undefined;
    const specInput = planLocalStackSpec({
      dir,
      runtimeDir,
      port: options.port,
      instancePorts: ports,
      ...(slots ? { slots } : {}),
      cli: cliEntry(),
      healthCheck: options.healthCheck,
      watch: options.watch,
      max5xxIncrease: options.max5xxIncrease,
    });
    await writeFile(specPath, `${JSON.stringify(specInput, null, 2)}\n`);
    const spec = await readSpecFile(specPath);
    const pool = spec.upstreams[LOCAL_UPSTREAM]!;
    const url = `http://127.0.0.1:${options.port}`;
    const supervisorIdentity = await readProcessIdentity(process.pid);
    const state: StackState = {
      version: 1,
      upstreams: { [LOCAL_UPSTREAM]: [] },
      instanceEnv: {
        PROXYOPS_DB_POOL_MAX: INSTANCE_DB_POOL,
        // The stack's instances share their rate-limit counters in Redis; another stack on the same
        // Redis (another checkout, a test) must not count against them.
        PROXYOPS_RATE_LIMIT_PREFIX: `proxyops:rate:${createHash('sha256').update(dir).digest('hex').slice(0, 12)}:`,
        ...options.apiSettings,
        DATABASE_URL: databaseUrl,
        ...(options.redisUrl ? { REDIS_URL: options.redisUrl } : {}),
      },
      stack: {
        supervisorPid: process.pid,
        ...(supervisorIdentity ? { supervisorIdentity } : {}),
        specPath,
        nginxPidFile: spec.paths.pidFile,
        url,
        logsDir: join(runtimeDir, 'logs'),
      },
    };
    await writeStackState(target, state);

    const startOne = async (port: number, seed: boolean): Promise<InstanceRecord> => {
      const command = toInstanceCommand(pool.deploy!, pool, { host: '127.0.0.1', port });
      if (seed) command.args.push('--seed');
      const logFile = join(runtimeDir, 'logs', `instance-${port}.log`);
      const started = await startInstance(command, { logFile, env: state.instanceEnv ?? {} });
      const record: InstanceRecord = {
        host: '127.0.0.1',
        port,
        pid: started.pid,
        logFile,
        inUpstream: true,
        ...(started.identity ? { identity: started.identity } : {}),
      };
      state.upstreams[LOCAL_UPSTREAM]!.push(record);
      await writeStackState(target, state);
      const ready = await waitUntilReady(`http://127.0.0.1:${port}${pool.healthCheck.readinessPath}`, {
        boundMs: pool.deploy!.readyTimeout * 1000,
        pollMs: 100,
        isAlive: () => isProcessAlive(started.pid),
      });
      if (!ready.ready)
        throw new ProxyopsError(
          'INSTANCE_NOT_READY',
          `instance 127.0.0.1:${port} ${ready.reason === 'exited' ? 'exited' : 'was not ready in time'}; see ${logFile}`,
        );
      say(`instance ${toAddress(record)} ready (pid ${started.pid}, log ${logFile})`);
      return record;
    };
    const startSlot = async (slot: string, seed: boolean): Promise<InstanceRecord> => {
      const record = await startSlotInstance({
        slot,
        pool: { ...pool, deploy: pool.deploy! },
        env: state.instanceEnv ?? {},
        logsDir: join(runtimeDir, 'logs'),
        ...(seed ? { extraArgs: ['--seed'] } : {}),
        started: async (started) => {
          state.upstreams[LOCAL_UPSTREAM]!.push(started);
          await writeStackState(target, state);
        },
      });
      say(`instance ${toAddress(record)} ready (pid ${record.pid}, log ${record.logFile})`);
      return record;
    };
    // The first instance migrates (and seeds) the database before the others start.
    if (slots) {
      await startSlot(slots[0]!, options.seed);
      await Promise.all(slots.slice(1).map((slot) => startSlot(slot, false)));
    } else {
      await startOne(ports[0]!, options.seed);
      await Promise.all(ports.slice(1).map((port) => startOne(port, false)));
    }

    await applyConfig({ specPath, target });
    await startNginx({
      confPath: join(target, 'current', MAIN_CONFIG_FILE),
      prefix: dir,
      startupErrorLog: spec.errorLog.path,
    });
    const through = await waitUntilReady(`${url}/health/ready`, { boundMs: 10_000, pollMs: 100 });
    if (!through.ready)
      throw new ProxyopsError(
        'STACK_NOT_SERVING',
        `nginx on ${url} does not answer 200 (last: ${through.lastStatus})`,
      );
    say(`nginx serving ${url} (pid file ${spec.paths.pidFile})`);
    // An instance that exits is started again; stopped first, so it does not restart what stop ends.
    const supervisor = superviseInstances(target, say);
    const rotation = options.logRotation;
    const rotator = rotation
      ? setInterval(() => {
          rotateStackLogs(join(runtimeDir, 'logs'), spec.paths.pidFile, rotation).catch((error: unknown) =>
            say(`log rotation failed: ${(error as Error).message}`),
          );
        }, LOG_CHECK_MS)
      : undefined;
    return {
      url,
      target,
      state,
      ...(database ? { embeddedDatabaseUrl: database.url } : {}),
      async stop() {
        clearInterval(rotator);
        await supervisor.stop();
        await stopAll();
      },
    };
  } catch (error) {
    await stopAll().catch(() => undefined);
    throw error;
  }
}

/** The one line for a port option that cannot be listened on: who holds it, or that it needs root. */
async function portRefusal(flag: string, port: number, code: string): Promise<ProxyopsError> {
  const holder = code === 'EADDRINUSE' ? await findListenerPid(port) : undefined;
  const why =
    code === 'EADDRINUSE'
      ? `is in use${holder ? ` (pid ${holder})` : ''}; pick another port`
      : code === 'EACCES' && port < 1024
        ? `is below 1024, which only root may listen on; pick ${flag === '--port' ? '--port 8080 or another' : 'one'} above 1023`
        : `cannot be listened on (${code}); pick another port`;
  return new ProxyopsError('BAD_OPTION', `${flag} ${port}: 127.0.0.1:${port} ${why}`);
}

/**
 * Stops what the state of `target` records, in order: nginx (graceful quit, so in-flight requests
 * finish), then every instance, then forgets the state. The embedded database lives in the `up`
 * process and stops with it.
 */
export async function stopStackProcesses(
  target: string,
  say: (line: string) => void = () => undefined,
): Promise<void> {
  if (!(await readStackState(target))) return;
  // A deploy under way puts its round back first, and none starts until the state is gone.
  const release = await holdDeploys(target, say);
  try {
    await stopRecordedProcesses(target, say);
  } finally {
    await release();
  }
}

async function stopRecordedProcesses(target: string, say: (line: string) => void): Promise<void> {
  const state = await readStackState(target);
  if (!state) return;
  if (state.stack) {
    const master = await readLiveMasterPid(state.stack.nginxPidFile);
    if (master !== undefined) {
      const workers = await readChildPids(master);
      say(`stopping nginx (pid ${master})`);
      await stopInstance(master, 'SIGQUIT', NGINX_STOP_MS);
      for (const worker of workers) await stopInstance(worker, 'SIGKILL', 1_000);
    }
  }
  const instances = Object.values(state.upstreams)
    .flat()
    .filter((i): i is InstanceRecord & { pid: number } => i.pid !== undefined);
  await Promise.all(
    instances.map(async (instance) => {
      // A pid from a state file may belong to another process by now: never signal a stranger.
      const status = await recordedStatus(instance);
      if (status === 'stranger')
        say(`pid ${instance.pid} is no longer instance ${toAddress(instance)}: left alone`);
      if (status !== 'ours') return;
      say(`stopping instance ${toAddress(instance)} (pid ${instance.pid})`);
      await stopInstance(instance.pid, INSTANCE_STOP_SIGNAL, INSTANCE_STOP_MS);
    }),
  );
  const sockets = Object.values(state.upstreams)
    .flat()
    .flatMap((i) => [i.socket, i.slot]);
  await Promise.all(sockets.map(removeSocketName));
  await removeStackState(target);
}

/** `proxyops down`: asks the `up` process to stop its stack, or stops what is left when it is gone. */
export async function stopStack(dir: string, say: (line: string) => void): Promise<boolean> {
  const target = stackTarget(resolve(dir));
  const state = await readStackState(target);
  if (!state) return false;
  // A deploy under way puts its round back before anything is stopped (up's stop would wait for it too).
  await (
    await holdDeploys(target, say)
  )();
  const stack = state.stack;
  const supervisor = stack && (await supervisorStatus(stack));
  if (supervisor === 'stranger')
    say(`pid ${stack!.supervisorPid} is not the proxyops up that started this stack any more: left alone`);
  if (supervisor === 'ours') {
    say(`asking proxyops up (pid ${stack!.supervisorPid}) to stop`);
    const result = await stopInstance(stack!.supervisorPid, 'SIGTERM', SUPERVISOR_STOP_MS);
    if (result.forced) say(`proxyops up did not stop in time: killed`);
  }
  await stopStackProcesses(target, say);
  // The logs live on in a runtime directory away from DIR (DIR/logs leads there): said, not removed.
  const runtimeDir = stack?.logsDir === undefined ? undefined : dirname(stack.logsDir);
  if (runtimeDir !== undefined && runtimeDir !== resolve(dir))
    say(
      `left ${runtimeDir}: its logs (${join(dir, 'logs')} leads there) and temp files${runtimeDir.startsWith('/run/') ? ', until the next reboot empties /run' : ''}; rm -r ${runtimeDir} when they are no longer wanted`,
    );
  return true;
}

/**
 * Whether the `up` process the state names still runs: `ours` only while it is that very process
 * (start time and boot as recorded), so a stranger that took the pid is never signalled.
 */
async function supervisorStatus(
  stack: NonNullable<StackState['stack']>,
): Promise<'ours' | 'gone' | 'stranger'> {
  if (stack.supervisorPid === process.pid) return 'gone';
  return recordedStatus({ pid: stack.supervisorPid, identity: stack.supervisorIdentity });
}
