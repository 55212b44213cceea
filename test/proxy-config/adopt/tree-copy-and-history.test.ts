import { chmod, mkdir, mkdtemp, readFile, rename, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  commitTreeChange,
  prepareTreeChange,
  undoTreeChange,
} from '../../../proxy-config/config/tree-change-steps.js';
import { ADOPTION_FILE, writeAdoptionFile } from '../../../proxy-config/shell/nginx/adoption-file.js';
import { testFailure } from '../../../proxy-config/shell/nginx/test-tree-copy.js';
import { recordTreeVersion } from '../../../proxy-config/shell/nginx/tree-history.js';
import { freePort } from '../../support/ports.js';

// The shell pieces of a tree change that need no running master: the test copy's links, the
// history's and the adoption record's file modes, and what a permission failure of nginx -t says.
describe('tree copy and history', () => {
  let root: string;
  let conf: string;
  let outside: string;
  const pidFile = () => join(root, 'none.pid');

  beforeAll(async () => {
    root = await mkdtemp(join(tmpdir(), 'proxyops-tree-copy-'));
    await chmod(root, 0o755);
    const etc = join(root, 'etc', 'nginx');
    await mkdir(join(etc, 'sites-enabled'), { recursive: true });
    await mkdir(join(root, 'srv'));
    conf = join(etc, 'nginx.conf');
    await writeFile(
      conf,
      `pid ${pidFile()};\nerror_log stderr;\nevents { worker_connections 64; }\nhttp {\n  access_log off;\n  include ${etc}/sites-enabled/*;\n}\n`,
    );
    // A site kept outside the tree, enabled by a RELATIVE link that leaves it.
    outside = join(root, 'srv', 'app.conf');
    await writeFile(outside, `server { listen 127.0.0.1:${await freePort()}; return 204; }\n`);
    await symlink('../../../srv/app.conf', join(etc, 'sites-enabled', 'app'));
  });

  afterAll(async () => {
    await rm(root, { recursive: true, force: true });
  });

  it('tests a change with a relative link out of the tree against the real file it names', async () => {
    const added = join(root, 'etc', 'nginx', 'sites-enabled', 'new');
    const change = {
      conf,
      files: [
        { path: added, before: '', after: `server { listen 127.0.0.1:${await freePort()}; return 204; }\n` },
      ],
    };
    // Copied as it was, the link would name TMPDIR/srv/app.conf beside the copy: missing, or a decoy.
    await expect(prepareTreeChange(change, pidFile())).resolves.toMatchObject({ change });
    // And the real file is what nginx -t reads: a fault in it is found (nginx names it by the link).
    const good = await readFile(outside, 'utf8');
    await writeFile(outside, good.replace('return 204;', 'no_such_directive on;'));
    try {
      await expect(prepareTreeChange(change, pidFile())).rejects.toMatchObject({
        code: 'NGINX_TEST_FAILED',
        message: expect.stringContaining(
          `unknown directive "no_such_directive" in ${join(root, 'etc', 'nginx', 'sites-enabled', 'app')}:1`,
        ),
      });
    } finally {
      await writeFile(outside, good);
    }
  });

  it('keeps history copies private and leaves the state directory as its owner made it', async () => {
    const state = await mkdtemp(join(root, 'state-'));
    await chmod(state, 0o700);
    await recordTreeVersion(state, {
      kind: 'adopt',
      appliedAt: new Date().toISOString(),
      conf,
      summary: 'test',
      texts: [{ path: '/etc/nginx/sites-enabled/api', before: 'token A\n', after: 'token B\n' }],
    });
    expect((await stat(state)).mode & 0o777).toBe(0o700);
    const version = join(state, 'versions', 'v0001');
    for (const file of [
      'before/etc/nginx/sites-enabled/api',
      'after/etc/nginx/sites-enabled/api',
      'record.json',
    ])
      expect((await stat(join(version, file))).mode & 0o077).toBe(0);
    // The adoption record holds the blocks' text too: as private as the copies.
    await writeAdoptionFile(state, { upstreams: { app: { original: 'server 10.0.0.1:80;\n' } } });
    expect((await stat(join(state, ADOPTION_FILE))).mode & 0o777).toBe(0o600);
  });

  it('says a permission failure of nginx -t is the user it ran as, not the change', async () => {
    // A real nginx -t as nobody on a tree holding a root-only file.
    const secret = join(root, 'etc', 'nginx', 'secret.conf');
    await writeFile(secret, '# token\n');
    await chmod(secret, 0o600);
    const main = join(root, 'etc', 'nginx', 'perm.conf');
    await writeFile(main, `error_log stderr;\nevents {}\nhttp { include ${secret}; }\n`);
    const run = await execa(
      'setpriv',
      [
        '--reuid=65534',
        '--regid=65534',
        '--clear-groups',
        'nginx',
        '-t',
        '-q',
        '-p',
        `${root}/`,
        '-c',
        main,
        '-e',
        '/dev/null',
      ],
      { reject: false, all: true },
    );
    expect(run.exitCode).not.toBe(0);
    expect(testFailure(run.all ?? '', 65534)).toMatchObject({
      code: 'NGINX_TEST_NOT_PERMITTED',
      message: expect.stringMatching(
        /as uid 65534, so the change was not tested.*13: Permission denied.*run as root, or as the user nginx runs as/,
      ),
    });
    // As root the same words are nginx's refusal of the change.
    expect(testFailure(run.all ?? '', 0)).toMatchObject({ code: 'NGINX_TEST_FAILED' });
  });

  it('a file that cannot be put back does not stop the others, and every failure is named', async () => {
    const etc = join(root, 'etc', 'nginx');
    const kept = join(etc, 'kept', 'e.conf');
    await mkdir(join(etc, 'kept'));
    await writeFile(kept, '# e\n');
    const made = join(etc, 'made');
    const change = {
      conf,
      files: [
        { path: join(made, 'sub', 'n.conf'), before: '', after: '# n\n' },
        { path: kept, before: '# e\n', after: '# e changed\n' },
      ],
    };
    const prepared = await prepareTreeChange(change, pidFile());
    await commitTreeChange(prepared);
    // e.conf's directory is replaced by a file: it cannot be put back; n.conf still must be.
    await rename(join(etc, 'kept'), join(etc, 'kept.moved'));
    await writeFile(join(etc, 'kept'), 'in the way\n');
    try {
      await expect(undoTreeChange(prepared)).rejects.toMatchObject({
        code: 'TREE_PUT_BACK_FAILED',
        message: expect.stringContaining(`could not put back 1 file(s)`),
      });
      await expect(stat(made)).rejects.toMatchObject({ code: 'ENOENT' });
    } finally {
      await rm(join(etc, 'kept'), { force: true });
      await rm(join(etc, 'kept.moved'), { recursive: true, force: true });
    }
  });
});
