import { describe, expect, it } from 'vitest';
import {
  describeBlocked,
  firstBlocked,
  parseGroup,
  parsePasswd,
  resolveWorkerUser,
  workerPaths,
  type PathEntry,
  type WorkerUser,
} from '../../../../proxy-config/core/apply/worker-access.js';
import { applySpecDefaults } from '../../../../proxy-config/core/spec/apply-spec-defaults.js';

const dir = (path: string, mode: number, uid = 0, gid = 0): PathEntry => ({
  path,
  mode: 0o40000 | mode,
  uid,
  gid,
  isDirectory: true,
});
const socket = (path: string, mode: number, uid = 0): PathEntry => ({
  path,
  mode: 0o140000 | mode,
  uid,
  gid: uid,
  isDirectory: false,
});
const nobody: WorkerUser = { name: 'nobody', uid: 65534, gids: [65534] };
const ROOT_HOME = [dir('/', 0o755), dir('/root', 0o700), dir('/root/p', 0o755)];

describe('firstBlocked: the component a worker user cannot pass', () => {
  it("root's 0700 home stops nobody; a 0755 path lets it through", () => {
    expect(firstBlocked(ROOT_HOME, nobody, 'search', true)?.path).toBe('/root');
    expect(firstBlocked([dir('/', 0o755), dir('/run', 0o755)], nobody, 'search', true)).toBeUndefined();
  });

  it('search needs x of the class that applies: owner, else group, else other', () => {
    const user = { name: 'u', uid: 1000, gids: [1000, 27] };
    expect(
      firstBlocked([dir('/', 0o755), dir('/home/u', 0o700, 1000, 1000)], user, 'search', true),
    ).toBeUndefined();
    expect(firstBlocked([dir('/', 0o755), dir('/srv', 0o750, 0, 27)], user, 'search', true)).toBeUndefined();
    // The owner class applies to the owner even where other would allow: 0075 owned by the user blocks it.
    expect(firstBlocked([dir('/', 0o755), dir('/odd', 0o075, 1000, 0)], user, 'search', true)?.path).toBe(
      '/odd',
    );
    expect(firstBlocked([dir('/', 0o755), dir('/srv', 0o750, 0, 50)], user, 'search', true)?.path).toBe(
      '/srv',
    );
  });

  it('connect needs write on the socket file once it exists; a missing socket needs only its directory', () => {
    const path = [dir('/', 0o755), dir('/run', 0o755), socket('/run/s.sock', 0o755)];
    expect(firstBlocked(path, nobody, 'connect', true)?.path).toBe('/run/s.sock');
    expect(firstBlocked(path.slice(0, 2), nobody, 'connect', false)).toBeUndefined();
    expect(
      firstBlocked([...path.slice(0, 2), socket('/run/s.sock', 0o777)], nobody, 'connect', true),
    ).toBeUndefined();
  });

  it('root passes everything', () => {
    expect(firstBlocked(ROOT_HOME, { name: 'root', uid: 0, gids: [0] }, 'search', true)).toBeUndefined();
  });
});

describe('resolveWorkerUser', () => {
  const accounts = {
    passwd: parsePasswd(
      'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\nwww-data:x:33:33::/var/www:/usr/sbin/nologin\n',
    ),
    groups: parseGroup('root:x:0:\nnogroup:x:65534:\nwww-data:x:33:\nssl-cert:x:110:www-data\n'),
  };
  const self = { name: 'me', uid: 1000, gids: [1000] };

  it("a root master's workers are nginx's default nobody (group nogroup) without a user directive", () => {
    expect(resolveWorkerUser({ uid: 0, self }, undefined, accounts)).toEqual({
      name: 'nobody',
      uid: 65534,
      gids: [65534],
    });
  });

  it('the user directive names them, with the groups that list the user', () => {
    expect(resolveWorkerUser({ uid: 0, self }, { user: 'www-data' }, accounts)).toEqual({
      name: 'www-data',
      uid: 33,
      gids: [33, 110],
    });
  });

  it('a master that is not root keeps its own user; an unknown account is undefined', () => {
    expect(resolveWorkerUser({ uid: 1000, self }, { user: 'www-data' }, accounts)).toBe(self);
    expect(resolveWorkerUser({ uid: 0, self }, { user: 'ghost' }, accounts)).toBeUndefined();
  });
});

describe('workerPaths and the refusal line', () => {
  it("names the sockets, the temp, maintenance and log directories, not the master's files", () => {
    const spec = applySpecDefaults({
      version: 1,
      paths: { pidFile: '/root/p/nginx.pid', tempDir: '/run/p/temp', maintenanceDir: '/run/p/maintenance' },
      accessLog: { path: '/root/p/logs/access.log' },
      errorLog: { path: 'stderr' },
      upstreams: { api: { servers: [{ socket: '/run/p/slots/slot-0.sock' }] } },
      servers: [{ names: ['a.test'], listen: [{ port: 8080 }], routes: [{ path: '/', upstream: 'api' }] }],
    } as never);
    expect(workerPaths(spec)).toEqual([
      { path: '/run/p/slots/slot-0.sock', need: 'connect', what: 'the socket of upstream api' },
      { path: '/run/p/temp', need: 'search', what: 'the temp directory (and the cache under it)' },
      { path: '/run/p/maintenance', need: 'search', what: 'the maintenance flag directory' },
      { path: '/root/p/logs', need: 'search', what: 'the log directory' },
    ]);
  });

  it('says the path, the user, what blocks it and the fix in one line', () => {
    const line = describeBlocked(
      { path: '/root/p/slots', need: 'search', what: 'the slot directory' },
      dir('/root', 0o700),
      nobody,
      'pass --runtime-dir DIR',
    );
    expect(line).toBe(
      "nginx's workers run as nobody (uid 65534) and cannot reach the slot directory /root/p/slots: /root is mode 0700 (owner uid 0, group 0): it cannot pass; pass --runtime-dir DIR",
    );
    expect(line).not.toContain('\n');
  });
});
