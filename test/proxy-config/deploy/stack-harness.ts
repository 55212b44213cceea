import { chmod, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa, type ResultPromise } from 'execa';
import { freePort } from '../../support/ports.js';

/** The built CLI the tests run, as a user would. */
export const CLI = join(process.cwd(), 'dist', 'cli', 'main.js');

/** A user of the seed data and an admin token to read it with. */
export const SEED_ADMIN = '00000000-0000-4000-8000-000000000001';
export const SEED_USER = '00000000-0000-4000-8000-000000000002';

/**
 * Environment of the stack and the CLI: the rate limit out of the way of the load generator, and the
 * embedded database unless a test passes its own DATABASE_URL (the server variants pass
 * test/support/services.ts's, which always has a value).
 */
const STACK_ENV = { PROXYOPS_RATE_LIMIT: '10000000', DATABASE_URL: '' };

/** A `proxyops up` running as a child process. */
export interface StackProcess {
  dir: string;
  url: string;
  process: ResultPromise;
  output(): string;
  state(): Promise<StackStateFile>;
}

/** The state file `up` and `deploy` keep. */
export interface StackStateFile {
  upstreams: Record<
    string,
    Array<{ host: string; port: number; pid?: number; inUpstream: boolean; logFile?: string }>
  >;
  instanceEnv?: Record<string, string>;
  stack?: { supervisorPid: number; specPath: string; nginxPidFile: string; logsDir: string };
}

/**
 * Starts `proxyops up` in a fresh temporary directory (or in `dir`, to start a stack again where one
 * ran) and waits until it says it is up.
 */
export async function startStack(
  flags: string[],
  env: Record<string, string> = {},
  dir?: string,
): Promise<StackProcess> {
  if (dir === undefined) {
    const root = await mkdtemp(join(tmpdir(), 'proxyops-stack-'));
    await chmod(root, 0o755);
    dir = join(root, 'stack');
  }
  const port = await freePort();
  // The rate limit out of the load generator's way, as the stack's setting (the caller's environment never reaches instances).
  const limit = flags.some((f) => f === '--rate-limit' || f.startsWith('PROXYOPS_RATE_LIMIT='))
    ? []
    : ['--rate-limit', '10000000'];
  const child = execa('node', [CLI, 'up', '--dir', dir, '--port', String(port), ...limit, ...flags], {
    env: { ...STACK_ENV, ...env },
    all: true,
    buffer: false,
    reject: false,
  });
  let output = '';
  child.all!.setEncoding('utf8');
  child.all!.on('data', (chunk: string) => (output += chunk));
  const deadline = Date.now() + 90_000;
  while (!output.includes('local stack is up')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGINT');
      throw new Error(`proxyops up did not come up:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return {
    dir,
    url: `http://127.0.0.1:${port}`,
    process: child,
    output: () => output,
    state: async () =>
      JSON.parse(await readFile(join(dir, 'config', 'instances.json'), 'utf8')) as StackStateFile,
  };
}

/** Stops a stack (SIGINT, as Ctrl-C) unless it has exited, waits for it, and removes its directory. */
export async function stopStack(stack: StackProcess | undefined): Promise<void> {
  if (!stack) return;
  if (stack.process.exitCode === null) stack.process.kill('SIGINT');
  await stack.process;
  await rm(join(stack.dir, '..'), { recursive: true, force: true });
}

/** Runs the CLI; `--json` output comes back parsed, one event per line. */
export async function runCli(args: string[]): Promise<{
  exitCode: number;
  stdout: string;
  stderr: string;
  events: Array<Record<string, unknown> & { type: string; ts: number }>;
}> {
  const result = await execa('node', [CLI, ...args], { reject: false, env: STACK_ENV, timeout: 120_000 });
  const events = args.includes('--json')
    ? result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown> & { type: string; ts: number })
    : [];
  return { exitCode: result.exitCode ?? -1, stdout: result.stdout, stderr: result.stderr, events };
}

/** A development admin token for the seed data. */
export async function adminToken(): Promise<string> {
  const { stdout } = await execa('node', [CLI, 'api', 'token', '--user', SEED_ADMIN, '--role', 'admin']);
  return stdout.trim();
}

/** True while the process exists (a zombie counts as gone). */
export async function isAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  return stat !== '' && stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
}

/** Every pid a stack runs: supervisor, nginx master and workers, instances. */
export async function stackPids(stack: StackProcess): Promise<number[]> {
  const state = await stack.state();
  const master = Number((await readFile(state.stack!.nginxPidFile, 'utf8')).trim());
  const workers: number[] = [];
  const { readdirSync } = await import('node:fs');
  for (const entry of readdirSync('/proc').filter((e) => /^\d+$/.test(e))) {
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === master) workers.push(Number(entry));
  }
  const instances = Object.values(state.upstreams)
    .flat()
    .map((i) => i.pid!)
    .filter(Boolean);
  return [state.stack!.supervisorPid, master, ...workers, ...instances];
}

/**
 * The spec of one nginx in front of one `tiny-app` instance (the app at `app`, a deploy watch of
 * 0.5 s, the 5xx gate on), as the spec-driven deploy tests write it; `snippet` goes into its server.
 */
export function singleAppSpec(site: {
  root: string;
  app: string;
  appPort: number;
  nginxPort: number;
  snippet?: string;
}): string {
  const { root, app, appPort, nginxPort, snippet } = site;
  return [
    'version: 1',
    `paths: { pidFile: ${root}/nginx.pid, tempDir: ${root}/temp }`,
    'workers: { processes: 1 }',
    `accessLog: { path: ${root}/logs/access.log, buffer: null, flush: null }`,
    `errorLog: { path: ${root}/logs/error.log }`,
    'upstreams:',
    '  app:',
    `    servers: [{ host: 127.0.0.1, port: ${appPort} }]`,
    '    healthCheck: { interval: 0.1, failureThreshold: 2, margin: 0.1 }',
    `    deploy: { command: [node, ${app}, "{port}"], watch: 0.5 }`,
    'servers:',
    `  - names: [localhost, 127.0.0.1]`,
    `    listen: [{ address: 127.0.0.1, port: ${nginxPort} }]`,
    '    routes: [{ path: /, upstream: app }]',
    ...(snippet === undefined ? [] : [`    snippets: [${JSON.stringify(snippet)}]`]),
    '',
  ].join('\n');
}
