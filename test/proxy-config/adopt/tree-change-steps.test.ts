import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readFile,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commitTreeChange,
  prepareTreeChange,
  undoTreeChange,
} from '../../../proxy-config/config/tree-change-steps.js';
import { readChildPids, readLiveMasterPid } from '../../../proxy-config/shell/nginx/nginx-master.js';
import { workersStartedAt } from '../../../proxy-config/shell/nginx/loaded-since.js';
import { reloadAndConfirm } from '../../../proxy-config/shell/nginx/reload-nginx.js';
import { freePort } from '../../support/ports.js';

// The one-host applier on its own, with a hand-made change to a small tree under a real master
// (root, workers as nobody): the adoption workflow and its Debian tree are tested in apply.test.ts.
describe('tree change steps', () => {
  let root: string;
  let conf: string;
  let site: string;
  let pidFile: string;
  const original = 'upstream app {\n\tserver 127.0.0.2:3001 max_fails=2;   # blue\n}\n';
  const adopted =
    'upstream app {\n\tserver 127.0.0.2:3001 max_fails=2;   # blue\n\tserver 127.0.0.3:3001 max_fails=2;  # proxyops: alternate of 127.0.0.2:3001\n}\n';

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-tree-steps-'));
    await chmod(root, 0o755);
    const etc = join(root, 'nginx');
    for (const dir of ['sites-available', 'sites-enabled', 'modules-enabled', 'logs'])
      await mkdir(join(etc, dir), { recursive: true });
    // As Debian enables a module: a link to a file that loads it by a path relative to nginx's prefix.
    await symlink(
      '/usr/share/nginx/modules-available/mod-http-js.conf',
      join(etc, 'modules-enabled', '50-mod-http-js.conf'),
    );
    conf = join(etc, 'nginx.conf');
    pidFile = join(root, 'nginx.pid');
    const port = await freePort();
    await writeFile(
      conf,
      `user nobody nogroup;\nworker_processes 1;\npid ${pidFile};\nerror_log ${etc}/logs/error.log;\ninclude ${etc}/modules-enabled/*.conf;\nevents { worker_connections 64; }\nhttp {\n  access_log off;\n  include ${etc}/sites-enabled/*;\n}\n`,
    );
    site = join(etc, 'sites-available', 'app');
    await writeFile(
      site,
      `${original}server { listen 127.0.0.1:${port}; location / { proxy_pass http://app; } }\n`,
    );
    await symlink(site, join(etc, 'sites-enabled', 'app'));
    // A second enabled site, which a test removes without a reload.
    await writeFile(join(etc, 'sites-enabled', 'old'), '# an old site\n');
    // No -p, as Debian's service starts it: the prefix is the compiled-in /usr/share/nginx.
    await execa('nginx', ['-c', conf]);
    for (let i = 0; i < 200 && !(await readLiveMasterPid(pidFile)); i++)
      await new Promise((r) => setTimeout(r, 25));
  });

  afterAll(async () => {
    await execa('nginx', ['-c', conf, '-s', 'stop'], { reject: false });
    await rm(root, { recursive: true, force: true });
  });

  it('writes through the link, reloads the same master, and undo gives the bytes back', async () => {
    const linked = join(root, 'nginx', 'sites-enabled', 'app');
    const before = await readFile(linked, 'utf8');
    const master = await readLiveMasterPid(pidFile);
    const workers = await readChildPids(master!);
    const change = { conf, files: [{ path: linked, before, after: before.replace(original, adopted) }] };
    const prepared = await prepareTreeChange(change, pidFile);
    expect(await readFile(site, 'utf8')).toBe(before);
    const { reload } = await commitTreeChange(prepared);
    expect(reload?.masterPid).toBe(master);
    expect(reload?.workersAfter.some((pid) => workers.includes(pid))).toBe(false);
    expect((await lstat(linked)).isSymbolicLink()).toBe(true);
    expect(await readFile(site, 'utf8')).toBe(before.replace(original, adopted));
    await undoTreeChange(prepared);
    expect(await readFile(site, 'utf8')).toBe(before);
    expect((await lstat(linked)).isSymbolicLink()).toBe(true);
  });

  it('a change nginx -t refuses leaves every byte as it was', async () => {
    const linked = join(root, 'nginx', 'sites-enabled', 'app');
    const before = await readFile(linked, 'utf8');
    const change = {
      conf,
      files: [{ path: linked, before, after: before.replace('max_fails=2;', 'max_fails=two;') }],
    };
    // nginx's words name the real file, not the copy it tested.
    await expect(prepareTreeChange(change, pidFile)).rejects.toMatchObject({
      code: 'NGINX_TEST_FAILED',
      message: expect.stringContaining(`invalid parameter "max_fails=two" in ${linked}:2`),
    });
    expect(await readFile(site, 'utf8')).toBe(before);
  });

  it('refuses when a file of the tree changed after the workers started, nothing written', async () => {
    const linked = join(root, 'nginx', 'sites-enabled', 'app');
    const before = await readFile(linked, 'utf8');
    await utimes(site, new Date(), new Date());
    const change = { conf, files: [{ path: linked, before, after: before.replace(original, adopted) }] };
    await expect(prepareTreeChange(change, pidFile)).rejects.toMatchObject({
      code: 'LIVE_NGINX_DIFFERS',
      message: expect.stringContaining(`${linked} was changed at`),
    });
    expect(await readFile(site, 'utf8')).toBe(before);
    // The person's own reload: nginx runs what is on disk again.
    await reloadAndConfirm(
      (await readLiveMasterPid(pidFile))!,
      join(root, 'nginx', 'logs', 'error.log'),
      30_000,
    );
  });

  it('a reload nginx refuses (a new site on a busy port) puts every byte back and reloads onto it', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const { port } = busy.address() as AddressInfo;
    const added = join(root, 'nginx', 'sites-enabled', 'busy');
    const siteBefore = await readFile(site, 'utf8');
    const master = await readLiveMasterPid(pidFile);
    try {
      const change = {
        conf,
        files: [{ path: added, before: '', after: `server { listen 127.0.0.1:${port}; return 204; }\n` }],
      };
      // nginx -t does not bind: the copy passes, the reload is what fails.
      const prepared = await prepareTreeChange(change, pidFile);
      await expect(commitTreeChange(prepared)).rejects.toMatchObject({
        code: 'RELOAD_FAILED',
        message: expect.stringMatching(/Address already in use.*every file was put back/s),
      });
    } finally {
      busy.close();
    }
    await expect(lstat(added)).rejects.toMatchObject({ code: 'ENOENT' });
    expect(await readFile(site, 'utf8')).toBe(siteBefore);
    expect(await readLiveMasterPid(pidFile)).toBe(master);
  });

  it('refuses a file that is not UTF-8 (a Latin-1 comment), nothing written', async () => {
    const linked = join(root, 'nginx', 'sites-enabled', 'app');
    const before = await readFile(site);
    const latin1 = Buffer.concat([before, Buffer.from('# Gr\xfc\xdfe\n', 'latin1')]);
    await writeFile(site, latin1);
    try {
      const text = latin1.toString('utf8');
      const change = {
        conf,
        files: [{ path: linked, before: text, after: text.replace(original, adopted) }],
      };
      await expect(prepareTreeChange(change, pidFile)).rejects.toMatchObject({ code: 'TREE_NOT_UTF8' });
      expect(await readFile(site)).toEqual(latin1);
    } finally {
      await writeFile(site, before);
      await reloadAndConfirm(
        (await readLiveMasterPid(pidFile))!,
        join(root, 'nginx', 'logs', 'error.log'),
        30_000,
      );
    }
  });

  /** Until the clock has passed the workers' start (as the check reads it): an edit from now on is later. */
  async function afterWorkersStarted(): Promise<void> {
    const master = (await readLiveMasterPid(pidFile))!;
    for (let i = 0; i < 400; i++) {
      const started = await workersStartedAt(master);
      if (started !== undefined && Date.now() > started + 50) return;
      await new Promise((r) => setTimeout(r, 10));
    }
    throw new Error('the workers never started');
  }

  const reloadOwn = async () =>
    reloadAndConfirm((await readLiveMasterPid(pidFile))!, join(root, 'nginx', 'logs', 'error.log'), 30_000);

  it('refuses a file copied in with an old mtime (cp -p, rsync -a, tar x), naming the exact reload', async () => {
    const linked = join(root, 'nginx', 'sites-enabled', 'app');
    const before = await readFile(site, 'utf8');
    const { mtime } = await stat(site);
    await afterWorkersStarted();
    // An unreviewed edit, its mtime set back as cp -p would: nginx never loaded it.
    await writeFile(site, before.replace('max_fails=2', 'max_fails=3'));
    await utimes(site, mtime, new Date(Date.now() - 3_600_000));
    try {
      const edited = await readFile(site, 'utf8');
      const change = {
        conf,
        files: [{ path: linked, before: edited, after: edited.replace('# blue', '# b') }],
      };
      await expect(prepareTreeChange(change, pidFile)).rejects.toMatchObject({
        code: 'LIVE_NGINX_DIFFERS',
        message: expect.stringMatching(
          new RegExp(
            `${linked} was changed at .* Load them with: \\S*nginx -t -p /usr/share/nginx/ -c ${conf} && kill -HUP `,
          ),
        ),
      });
    } finally {
      await writeFile(site, before);
      await reloadOwn();
    }
  });

  it('refuses when a site was removed from a wildcard directory without a reload', async () => {
    const linked = join(root, 'nginx', 'sites-enabled', 'app');
    const old = join(root, 'nginx', 'sites-enabled', 'old');
    const before = await readFile(site, 'utf8');
    await afterWorkersStarted();
    await rm(old);
    try {
      const change = { conf, files: [{ path: linked, before, after: before.replace(original, adopted) }] };
      await expect(prepareTreeChange(change, pidFile)).rejects.toMatchObject({
        code: 'LIVE_NGINX_DIFFERS',
        message: expect.stringContaining(`${join(root, 'nginx', 'sites-enabled')} was changed at`),
      });
    } finally {
      await writeFile(old, '# an old site\n');
      await reloadOwn();
    }
  });

  it('a hand edit made after nginx -t is kept: commit refuses, and puts back what it wrote', async () => {
    const linked = join(root, 'nginx', 'sites-enabled', 'app');
    const made = join(root, 'nginx', 'conf.d-new');
    const before = await readFile(site, 'utf8');
    const change = {
      conf,
      files: [
        // Written first (in a directory it makes), so it must be put back when the second is refused.
        { path: join(made, 'sub', 'extra.conf'), before: '', after: '# extra\n' },
        { path: linked, before, after: before.replace(original, adopted) },
      ],
    };
    const prepared = await prepareTreeChange(change, pidFile);
    const hand = before.replace('# blue', '# blue, HAND EDIT');
    await writeFile(site, hand);
    try {
      await expect(commitTreeChange(prepared)).rejects.toMatchObject({
        code: 'TREE_CHANGED',
        message: expect.stringContaining(`${linked} was edited while the change was tested`),
      });
      expect(await readFile(site, 'utf8')).toBe(hand);
      await expect(lstat(made)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await writeFile(site, before);
      await reloadOwn();
    }
  });
});
