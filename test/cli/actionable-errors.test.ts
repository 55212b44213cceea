import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, readlink, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reachableCheckout } from '../support/checkout-copy.js';
import { freePort } from '../support/ports.js';

const ROOT = process.cwd();
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
const SPEC = join(ROOT, 'proxy-config', 'examples', 'api-front.yaml');

/** Runs the built CLI; as `user.uid`, from `user.checkout`, which that uid can reach (the checkout may not be). */
function proxyops(
  args: string[],
  env: Record<string, string> = {},
  user?: { uid: number; checkout: string },
) {
  const command =
    user === undefined
      ? ['node', CLI, ...args]
      : [
          'setpriv',
          `--reuid=${user.uid}`,
          `--regid=${user.uid}`,
          '--clear-groups',
          'node',
          join(user.checkout, 'dist', 'cli', 'main.js'),
          ...args,
        ];
  return execa(command[0]!, command.slice(1), {
    cwd: user === undefined ? ROOT : user.checkout,
    reject: false,
    timeout: 60_000,
    env: { DATABASE_URL: '', REDIS_URL: '', DEBUG: '', ...env },
  });
}

/** One line on stderr, no stack frame in it. */
function expectOneLine(stderr: string): void {
  expect(stderr.split('\n'), stderr).toHaveLength(1);
  expect(stderr).not.toMatch(/^\s+at /m);
  expect(stderr).toMatch(/^proxyops: /);
}

describe('errors a person can act on: one line naming what and what to do, exit 2', () => {
  let busy: Server;
  let port: number;
  let dir: string;

  beforeAll(async () => {
    port = await freePort();
    busy = createServer();
    await new Promise<void>((resolve) => busy.listen(port, '127.0.0.1', resolve));
    dir = await mkdtemp(join(tmpdir(), 'proxyops-errors-'));
  });
  afterAll(async () => {
    await new Promise((resolve) => busy.close(resolve));
    await rm(dir, { recursive: true, force: true });
  });

  it('proxyops api on a port in use', async () => {
    const result = await proxyops(['api', '--port', String(port)]);
    expect(result.exitCode).toBe(2);
    expectOneLine(result.stderr);
    expect(result.stderr).toContain(`cannot listen on 127.0.0.1:${port}: another process uses that port`);
    expect(result.stderr).toContain('--port');
  });

  it('--debug, or DEBUG=proxyops, adds the stack trace', async () => {
    for (const run of [
      proxyops(['api', '--port', String(port), '--debug']),
      proxyops(['api', '--port', String(port)], { DEBUG: 'express,proxyops' }),
    ]) {
      const result = await run;
      expect(result.exitCode).toBe(2);
      expect(result.stderr.split('\n')[0]).toContain('another process uses that port');
      expect(result.stderr).toMatch(/EADDRINUSE[\s\S]*\n\s+at /);
    }
  });

  it('a database that does not answer (DATABASE_URL)', async () => {
    const dead = await freePort(); // nothing listens there
    const result = await proxyops(['api', '--port', String(await freePort())], {
      DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${dead}/proxyops`,
    });
    expect(result.exitCode).toBe(2);
    expectOneLine(result.stderr);
    expect(result.stderr).toBe(
      `proxyops: cannot use the database at postgres://postgres:***@127.0.0.1:${dead}/proxyops (DATABASE_URL): cannot connect (ECONNREFUSED); start it, or fix DATABASE_URL`,
    );
  });

  it('a missing file', async () => {
    for (const args of [
      ['config', 'validate', '--spec', join(dir, 'missing.yaml')],
      ['logs', 'stats', join(dir, 'missing.log')],
      ['config', 'lint', join(dir, 'missing.conf')],
    ]) {
      const result = await proxyops(args);
      expect(result.exitCode, args.join(' ')).toBe(2);
      expectOneLine(result.stderr);
      expect(result.stderr).toContain(join(dir, 'missing.'));
      expect(result.stderr).toMatch(/ENOENT|no such file/);
    }
  });

  it('a directory without permission', async () => {
    const closed = join(dir, 'closed');
    await mkdir(closed);
    const checkout = await reachableCheckout();
    await chmod(dir, 0o755);
    await chmod(closed, 0o700); // root's; the command runs as nobody
    const spec = join(dir, 'spec.yaml');
    await writeFile(spec, await readFile(SPEC));
    await chmod(spec, 0o644);
    try {
      for (const args of [
        ['config', 'render', '--spec', spec, '--out', join(closed, 'out')],
        ['config', 'apply', '--spec', spec, '--target', closed],
      ]) {
        const result = await proxyops(args, {}, { uid: 65534, checkout: checkout.root });
        expect(result.exitCode, `${args.join(' ')}: ${result.stderr}`).toBe(2);
        expectOneLine(result.stderr);
        expect(result.stderr).toContain(closed);
        expect(result.stderr).toMatch(/EACCES|permission denied/);
      }
    } finally {
      await checkout.remove();
    }
  });
});

describe('config apply on a full disk (a small tmpfs)', () => {
  const mountPoint = join(tmpdir(), `proxyops-full-disk-${process.pid}`);
  let mounted = false;

  beforeAll(async () => {
    await mkdir(mountPoint, { recursive: true });
    // Needs root and a kernel that lets us mount: true on the test machines and in CI (see docs/architecture.md).
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'size=256k', 'tmpfs', mountPoint]);
    mounted = true;
  });
  afterAll(async () => {
    if (mounted) execFileSync('umount', [mountPoint]);
    await rm(mountPoint, { recursive: true, force: true });
  });

  /** Empties the tmpfs, applies once when `first` is false, then fills it to leave `freeKiB` free. */
  async function prepare(first: boolean, freeKiB: number): Promise<string> {
    for (const entry of await readdir(mountPoint))
      await rm(join(mountPoint, entry), { recursive: true, force: true });
    const target = join(mountPoint, 'target');
    await mkdir(target);
    if (!first)
      expect((await proxyops(['config', 'apply', '--spec', SPEC, '--target', target])).exitCode).toBe(0);
    const avail = Number(
      execFileSync('df', ['--output=avail', '-k', mountPoint], { encoding: 'utf8' }).split('\n')[1],
    );
    if (avail > freeKiB) {
      try {
        execFileSync(
          'dd',
          ['if=/dev/zero', `of=${join(mountPoint, 'fill')}`, 'bs=1k', `count=${avail - freeKiB}`],
          { stdio: 'ignore' },
        );
      } catch {
        // dd stops at a full disk: that is the point.
      }
    }
    return target;
  }

  /** Every file under the target, for "nothing was left behind". */
  async function tree(path: string): Promise<string[]> {
    return (await readdir(path, { recursive: true })).sort();
  }

  it('at every fill level: done, or one line with what to do, exit 2, and no lock, staging or temp file left', async () => {
    const outcomes: string[] = [];
    for (const first of [true, false]) {
      for (const freeKiB of [0, 4, 8, 12, 16, 20, 24, 32, 48]) {
        const target = await prepare(first, freeKiB);
        const before = first ? [] : await tree(target);
        const current = first ? undefined : await readlink(join(target, 'current'));
        // A changed spec, so the second apply writes a new version.
        const spec = join(tmpdir(), `proxyops-full-disk-spec-${process.pid}.yaml`);
        await writeFile(spec, (await readFile(SPEC, 'utf8')).replace('proxyRead: 40', 'proxyRead: 41'));
        const result = await proxyops(['config', 'apply', '--spec', spec, '--target', target]);
        await rm(spec);
        const label = `${first ? 'first' : 'second'} apply, ${freeKiB} KiB free`;
        outcomes.push(`${label}: ${result.exitCode}`);
        const after = await tree(target);
        expect(
          after.filter((file) => /lock|staging|\.tmp|~$/.test(file)),
          label,
        ).toEqual([]);
        if (result.exitCode === 0) continue;
        expect(result.exitCode, `${label}: ${result.stderr}`).toBe(2);
        expectOneLine(result.stderr);
        expect(result.stderr, label).toMatch(/ENOSPC|no space left/);
        expect(result.stderr, label).toContain('free some space');
        // Nothing changed: the same files, the same version live.
        // (A first apply may leave the empty versions/ directory it made: the layout, not a half-written change.)
        expect(first && after.join() === 'versions' ? [] : after, label).toEqual(before);
        if (current !== undefined) expect(await readlink(join(target, 'current')), label).toBe(current);
      }
    }
    // The levels cover both outcomes, or the test proves nothing.
    expect(outcomes.some((o) => o.endsWith(': 2'))).toBe(true);
    expect(outcomes.some((o) => o.endsWith(': 0'))).toBe(true);
  }, 300_000);
});
