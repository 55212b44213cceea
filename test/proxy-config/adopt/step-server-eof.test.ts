import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readChildPids } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { isAlive } from '../../../proxy-config/shell/process/proc-process-tree.js';
import { BUILT_CLI } from '../../support/built-cli.js';
import { hashTree } from '../../support/debian-tree.js';

// The far side of a change to several hosts, `proxyops remote steps`, as a real process: its
// session ending (stdin closed: the near proxyops interrupted, ssh gone) stops it even mid-step,
// and its locks go with it. The step held up here is real: nginx -t blocks opening a certificate
// that is a FIFO nobody writes, as on a host whose disk hangs.

let root: string;
let dir: string;
let state: string;
let server: ChildProcessWithoutNullStreams | undefined;

const APP =
  'upstream app {\n\tserver 127.0.0.2:3001;\n}\nserver {\n\tlisten 127.0.0.1:1;\n\tlocation / { proxy_pass http://app; }\n}\n';

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'proxyops-step-eof-'));
  await chmod(root, 0o755);
  dir = join(root, 'nginx');
  state = join(root, 'state');
  for (const sub of ['sites-available', 'sites-enabled']) await mkdir(join(dir, sub), { recursive: true });
  await writeFile(
    join(dir, 'nginx.conf'),
    `pid ${root}/nginx.pid;\nerror_log ${root}/error.log;\nevents { }\nhttp {\n\taccess_log off;\n\tinclude ${dir}/sites-enabled/*;\n}\n`,
  );
  await writeFile(join(dir, 'sites-available', 'app'), APP);
  await symlink('../sites-available/app', join(dir, 'sites-enabled', 'app'));
});

afterEach(async () => {
  if (server && server.exitCode === null && server.signalCode === null) server.kill('SIGKILL');
  server = undefined;
  await rm(root, { recursive: true, force: true });
});

/** Starts the step server on `state` and sends it a tree change that sets sites-available/app to `app`. */
function startSession(app: string) {
  server = spawn(process.execPath, [BUILT_CLI, 'remote', 'steps', '--target', state], { stdio: 'pipe' });
  const exited = new Promise<number | null>((resolve) => server!.once('exit', (code) => resolve(code)));
  const replies = createInterface({ input: server.stdout })[Symbol.asyncIterator]();
  const spec = {
    version: 1,
    nginx: { conf: join(dir, 'nginx.conf'), pidFile: join(root, 'nginx.pid'), state },
    upstreams: { app: { servers: [{ host: '127.0.0.2', port: 3001, alternate: '127.0.0.3:3001' }] } },
  };
  const request = {
    step: 'prepare-tree',
    spec,
    source: { kind: 'files', files: { 'sites-available/app': app }, links: {} },
    appliedAt: new Date().toISOString(),
  };
  server.stdin.write(`${JSON.stringify(request)}\n`);
  return { server, exited, replies };
}

const LOCKS = () => ['.proxyops.lock', 'deploy.lock'].filter((name) => existsSync(join(state, name)));

async function until(what: string, check: () => Promise<boolean> | boolean): Promise<void> {
  for (let i = 0; i < 400; i++) {
    if (await check()) return;
    await sleep(25);
  }
  throw new Error(`never: ${what}`);
}

describe('proxyops remote steps when its session ends', () => {
  it('stops a step under way (nginx -t blocked), kills nginx -t and releases its locks at once', async () => {
    const cert = join(root, 'cert.pem');
    await execa('mkfifo', [cert]);
    const before = await hashTree(dir);
    const tls = `${APP}server {\n\tlisten 127.0.0.1:2 ssl;\n\tssl_certificate ${cert};\n\tssl_certificate_key ${cert};\n}\n`;
    const session = startSession(tls);
    let nginxT: number | undefined;
    await until('nginx -t runs under the locks', async () => {
      for (const pid of await readChildPids(session.server.pid!)) {
        // Its arguments, not a path that happens to hold "-t" (nginx -T reading the live config).
        const argv = (await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
        if (argv.includes('-t')) nginxT = pid;
      }
      return nginxT !== undefined && LOCKS().length === 2;
    });
    session.server.stdin.end();
    // The step under way was nginx -t: it ends as a failed test, nothing written.
    const answer = JSON.parse(String((await session.replies.next()).value));
    expect(answer).toMatchObject({ ok: false, error: { code: 'NGINX_TEST_FAILED' } });
    await session.exited;
    expect(LOCKS()).toEqual([]);
    expect(isAlive(nginxT!)).toBe(false);
    expect(await hashTree(dir)).toEqual(before);
  });

  it('between steps: exits, writes nothing and releases its locks', async () => {
    const before = await hashTree(dir);
    const session = startSession(APP.replace('127.0.0.2:3001;', '127.0.0.2:3001 max_fails=2;'));
    const prepared = await session.replies.next();
    expect(JSON.parse(String(prepared.value))).toMatchObject({ ok: true, step: 'prepared' });
    expect(LOCKS()).toEqual(['.proxyops.lock', 'deploy.lock']);
    session.server.stdin.end();
    expect(await session.exited).toBe(0);
    expect(LOCKS()).toEqual([]);
    expect(await hashTree(dir)).toEqual(before);
  });
});
