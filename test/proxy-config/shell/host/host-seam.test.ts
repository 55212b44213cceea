import { existsSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Host } from '../../../../proxy-config/shell/host/host.js';
import { createLocalHost } from '../../../../proxy-config/shell/host/local-host.js';
import { createSshHost } from '../../../../proxy-config/shell/host/ssh-host.js';
import { startTestHosts, type TestHosts } from '../../../support/ssh-hosts.js';

/** Names that a shell would read as commands, separators, quotes or globs: none may do anything. */
const HOSTILE = [
  '$(touch pwned-proxyops)',
  '`touch pwned-proxyops`',
  'a;touch pwned-proxyops',
  'it\'s "quoted"',
  'new\nline',
  '-rf',
  '* ?[a]',
  '|| touch pwned-proxyops &',
];
/** Where a command injected through a name would have left its file: the remote cwd is root's home. */
const PWNED = ['/root/pwned-proxyops', join(process.cwd(), 'pwned-proxyops'), '/tmp/pwned-proxyops'];

let hosts: TestHosts;
const previousConfig = process.env.PROXYOPS_SSH_CONFIG;

beforeAll(async () => {
  for (const path of PWNED) await rm(path, { force: true });
  hosts = await startTestHosts(['web1', 'web2'], { trusted: true });
  process.env.PROXYOPS_SSH_CONFIG = hosts.sshConfig;
});

afterAll(async () => {
  if (previousConfig === undefined) delete process.env.PROXYOPS_SSH_CONFIG;
  else process.env.PROXYOPS_SSH_CONFIG = previousConfig;
  await hosts?.teardown();
});

/** The same contract on both implementations: the host's own directory is where `dir` says. */
const cases: Array<{ label: string; make: () => { host: Host; dir: string; local: string } }> = [
  {
    label: 'this machine',
    make: () => ({ host: createLocalHost(), dir: hosts.host('web1').dir, local: hosts.host('web1').dir }),
  },
  {
    label: 'a host over ssh',
    make: () => ({
      host: createSshHost('web1'),
      dir: hosts.host('web1').mountPoint,
      local: hosts.host('web1').dir,
    }),
  },
];

describe.each(cases)('the host seam on $label', ({ make }) => {
  let host: Host;
  let dir: string;
  let local: string;
  beforeAll(async () => {
    ({ host, dir, local } = make());
    await mkdir(join(local, 'seam'), { recursive: true });
  });
  afterAll(() => host.close());

  it('runs argv and returns its output and exit code, stdin included', async () => {
    const result = await host.run(['sh', '-c', 'cat; echo err >&2; exit 3'], { input: 'from stdin' });
    expect(result).toEqual({ exitCode: 3, stdout: 'from stdin', stderr: expect.stringContaining('err') });
  });

  it('hostile file names and arguments are data, never commands', async () => {
    for (const name of HOSTILE) {
      const path = join(dir, 'seam', name);
      // The text travels on stdin, the name as an argument of a fixed script.
      const wrote = await host.run(['sh', '-c', 'cat > "$1"', 'sh', path], { input: `text of ${name}` });
      expect(wrote.exitCode, wrote.stderr).toBe(0);
      expect((await host.run(['cat', '--', path])).stdout).toBe(`text of ${name}`);
      expect(await readFile(join(local, 'seam', name), 'utf8')).toBe(`text of ${name}`);
      expect((await host.run(['printf', '%s', name])).stdout).toBe(name);
      const absolute = name.replace('pwned', '/tmp/pwned');
      expect((await host.run(['printf', '%s', absolute])).stdout).toBe(absolute);
    }
    for (const path of PWNED) expect(existsSync(path)).toBe(false);
    expect(existsSync(join(local, 'seam', 'pwned-proxyops'))).toBe(false);
  });

  it('streams with a long-running command and sees it end', async () => {
    const session = host.open(['sh', '-c', 'echo started; read line; echo "got $line"']);
    const first = await new Promise<string>((resolve) =>
      session.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString())),
    );
    expect(first).toBe('started\n');
    let rest = '';
    session.stdout.on('data', (chunk: Buffer) => (rest += chunk.toString()));
    session.stdin.end('reply\n');
    expect((await session.done).exitCode).toBe(0);
    expect(rest).toBe('got reply\n');
  });
});

describe('ssh as users trust it', () => {
  it('an unknown host key is one line that names the known_hosts fix, and nothing runs', async () => {
    const stranger = await startTestHosts(['stranger']);
    const before = process.env.PROXYOPS_SSH_CONFIG;
    process.env.PROXYOPS_SSH_CONFIG = stranger.sshConfig;
    const host = createSshHost('stranger');
    try {
      const marker = join(stranger.host('stranger').mountPoint, 'ran');
      const error = await host.run(['touch', marker]).then(
        () => undefined,
        (e: unknown) => e as Error & { code: string },
      );
      expect(error?.code).toBe('SSH_HOST_KEY_UNKNOWN');
      expect(error?.message.split('\n')).toHaveLength(1);
      expect(error?.message).toContain(
        `ssh-keyscan ${stranger.host('stranger').address} >> ${stranger.knownHosts}`,
      );
      expect(existsSync(join(stranger.host('stranger').dir, 'ran'))).toBe(false);
    } finally {
      await host.close();
      process.env.PROXYOPS_SSH_CONFIG = before;
      await stranger.teardown();
    }
  });

  it('a changed host key is refused in one line naming the ssh-keygen -R that removes the old one', async () => {
    const moved = await startTestHosts(['moved'], { trusted: true });
    const before = process.env.PROXYOPS_SSH_CONFIG;
    process.env.PROXYOPS_SSH_CONFIG = moved.sshConfig;
    const host = createSshHost('moved');
    try {
      // known_hosts holds another key for the address: as after a reinstall, or a machine in its place.
      const other = join(moved.root, 'other');
      execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other]);
      const [type, key] = (await readFile(`${other}.pub`, 'utf8')).split(' ');
      await writeFile(moved.knownHosts, `${moved.host('moved').address} ${type} ${key}\n`);
      const error = await host.run(['true']).then(
        () => undefined,
        (e: unknown) => e as Error & { code: string },
      );
      expect(error?.code).toBe('SSH_HOST_KEY_CHANGED');
      expect(error?.message.split('\n')).toHaveLength(1);
      expect(error?.message).toContain(`ssh-keygen -R ${moved.host('moved').address} -f ${moved.knownHosts}`);
    } finally {
      await host.close();
      process.env.PROXYOPS_SSH_CONFIG = before;
      await moved.teardown();
    }
  });

  it('a lost host is one line naming it, whether its sshd stopped or its link went down', async () => {
    const doomed = await startTestHosts(['gone1', 'gone2'], { trusted: true });
    const before = process.env.PROXYOPS_SSH_CONFIG;
    process.env.PROXYOPS_SSH_CONFIG = doomed.sshConfig;
    try {
      for (const [name, how] of [
        ['gone1', 'sshd'],
        ['gone2', 'link'],
      ] as const) {
        const host = createSshHost(name);
        expect((await host.run(['true'])).exitCode).toBe(0);
        await doomed.lose(name, how);
        const error = await host.run(['true']).then(
          () => undefined,
          (e: unknown) => e as Error & { code: string },
        );
        expect(error?.code).toBe('HOST_UNREACHABLE');
        expect(error?.message).toMatch(new RegExp(`^${name}: lost or unreachable`));
        await host.close();
      }
    } finally {
      process.env.PROXYOPS_SSH_CONFIG = before;
      await doomed.teardown();
    }
  }, 60_000);

  it('a destination that would be an ssh option is refused before ssh runs', () => {
    expect(() => createSshHost('-oProxyCommand=touch /tmp/pwned-proxyops')).toThrow(/not an ssh destination/);
  });
});
