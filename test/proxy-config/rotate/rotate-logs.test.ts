import { existsSync } from 'node:fs';
import { readdir, readFile, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';
import { rotateLogs } from '../../../proxy-config/logs/rotate-logs.js';
import { holdsInode } from '../../../proxy-config/shell/process/proc-fds.js';
import { processFamily } from '../../../proxy-config/shell/process/proc-process-tree.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';
import { startUpstreamApp, type UpstreamApp } from '../../support/upstream-app.js';

const lineCount = (text: string) => text.split('\n').filter(Boolean).length;

// The test machine is shared and often overloaded: give nginx's reopen more room than the CLI default.
const REOPEN_BOUND_MS = 15_000;

async function rejection(work: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await work;
  } catch (error) {
    if (isProxyopsError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected a ProxyopsError');
}

describe('rotateLogs against a live nginx', () => {
  let nginx: LiveNginx;
  let app: UpstreamApp;
  let port: number;
  let pidFile: string;
  beforeEach(async () => {
    app = await startUpstreamApp();
    port = await freePort();
    nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${port};
        location / { proxy_pass http://127.0.0.1:${app.port}; }
      }`);
    pidFile = join(nginx.prefix, 'nginx.pid');
  });
  afterEach(async () => {
    await nginx.stop();
    await app.close();
  });

  it('under load loses no line: requests sent = lines in the old (gzipped) file + lines in the new one', async () => {
    const total = 600;
    let sent = 0;
    let rotation: ReturnType<typeof rotateLogs> | undefined;
    const worker = async () => {
      while (sent < total) {
        sent++;
        if (sent === 200)
          rotation = rotateLogs({
            log: nginx.accessLog,
            pidFile,
            compress: true,
            timeoutMs: REOPEN_BOUND_MS,
          });
        expect((await fetch(`http://127.0.0.1:${port}/echo`)).status).toBe(200);
      }
    };
    await Promise.all([worker(), worker(), worker(), worker()]);
    const result = await rotation!;

    expect(result.movedTo).toMatch(/access\.log\.\d{8}-\d{6}$/);
    expect(result.compressedTo).toBe(`${result.movedTo}.gz`);
    expect(existsSync(result.movedTo)).toBe(false);
    expect(result.released.length).toBeGreaterThanOrEqual(2); // master and worker
    const oldLines = lineCount(gunzipSync(await readFile(result.compressedTo!)).toString('utf8'));
    // nginx writes each line after answering: wait (bounded, 10 s on a loaded machine) for the last ones.
    let newLines = 0;
    for (let i = 0; i < 500 && oldLines + newLines < total; i++) {
      newLines = lineCount(await nginx.readAccessLog());
      if (oldLines + newLines < total) await new Promise((r) => setTimeout(r, 20));
    }
    expect(oldLines).toBeGreaterThan(0);
    expect(newLines).toBeGreaterThan(0);
    expect(oldLines + newLines).toBe(total);
  });

  it('confirms that no nginx process holds the old file any more', async () => {
    await fetch(`http://127.0.0.1:${port}/`);
    const before = await stat(nginx.accessLog);
    const result = await rotateLogs({ log: nginx.accessLog, pidFile, timeoutMs: REOPEN_BOUND_MS });
    const family = await processFamily(result.masterPid);
    expect(family.length).toBeGreaterThanOrEqual(2);
    for (const member of family) expect(await holdsInode(member.pid, before.dev, before.ino)).toBe(false);
    expect((await stat(result.movedTo)).ino).toBe(before.ino);
    expect((await stat(nginx.accessLog)).ino).not.toBe(before.ino);
  });

  it('never overwrites an earlier rotation in the same second', async () => {
    const now = new Date('2026-11-22T02:40:00Z');
    const first = await rotateLogs({ log: nginx.accessLog, pidFile, now, timeoutMs: REOPEN_BOUND_MS });
    const second = await rotateLogs({ log: nginx.accessLog, pidFile, now, timeoutMs: REOPEN_BOUND_MS });
    expect(second.movedTo).toBe(`${first.movedTo}.1`);
    expect(existsSync(first.movedTo) && existsSync(second.movedTo)).toBe(true);
  });

  it('refuses a missing pid file, a dead pid, a missing log and a log nginx does not hold, moving nothing', async () => {
    const missingPid = await rejection(
      rotateLogs({ log: nginx.accessLog, pidFile: join(nginx.prefix, 'nope.pid') }),
    );
    expect(missingPid).toMatchObject({ code: 'BAD_OPTION' });
    expect(missingPid.message).toMatch(/cannot read pid file .*nope\.pid: ENOENT/);

    const exited = await execa('sh', ['-c', 'echo $$']);
    const deadPidFile = join(nginx.prefix, 'dead.pid');
    await writeFile(deadPidFile, `${exited.stdout.trim()}\n`);
    const dead = await rejection(rotateLogs({ log: nginx.accessLog, pidFile: deadPidFile }));
    expect(dead).toMatchObject({ code: 'NGINX_NOT_RUNNING' });
    expect(dead.message).toContain(`pid ${exited.stdout.trim()} from ${deadPidFile} does not exist`);

    const missingLog = await rejection(rotateLogs({ log: join(nginx.prefix, 'logs', 'other.log'), pidFile }));
    expect(missingLog).toMatchObject({ code: 'BAD_OPTION' });
    expect(missingLog.message).toMatch(/--log .*other\.log does not exist/);

    const stray = join(nginx.prefix, 'logs', 'stray.log');
    await writeFile(stray, 'not an nginx log\n');
    const notHeld = await rejection(rotateLogs({ log: stray, pidFile }));
    expect(notHeld.message).toMatch(/no process of nginx \d+ has .*stray\.log open; .*nothing was moved/);
    expect((await readdir(join(nginx.prefix, 'logs'))).sort()).toEqual([
      'access.log',
      'error.log',
      'stray.log',
    ]);
  });
});
