import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rotateLogs } from '../../../proxy-config/logs/rotate-logs.js';
import { startLiveNginx, type LiveNginx } from '../../support/live-nginx.js';
import { freePort } from '../../support/ports.js';

const lineCount = (text: string) => text.split('\n').filter(Boolean).length;

describe('rotateLogs with a buffered access log (conventions §4.8: 64 KB buffer, periodic flush)', () => {
  let nginx: LiveNginx;
  let port: number;
  beforeAll(async () => {
    port = await freePort();
    nginx = await startLiveNginx(`
      server {
        listen 127.0.0.1:${port};
        # The defaults (64k, 5 s): with 1 s, on a slow machine a flush could land before the look below.
        access_log {{accessLog}} main buffer=64k flush=5s;
        location / { return 200 "ok\\n"; }
      }`);
  });
  afterAll(() => nginx.stop());

  it('keeps the buffered lines: the reopen flushes them into the old file', async () => {
    const before = 150;
    const after = 50;
    for (let i = 0; i < before; i++) await fetch(`http://127.0.0.1:${port}/before`);
    // The lines sit in the worker's buffer, not in the file yet.
    expect(lineCount(await nginx.readAccessLog())).toBeLessThan(before);
    // A generous bound: the test machine is shared.
    const result = await rotateLogs({
      log: nginx.accessLog,
      pidFile: join(nginx.prefix, 'nginx.pid'),
      timeoutMs: 15_000,
    });
    expect(lineCount(await readFile(result.movedTo, 'utf8'))).toBe(before);
    for (let i = 0; i < after; i++) await fetch(`http://127.0.0.1:${port}/after`);
    // The 5 s flush timer brings them: wait (bounded) for it.
    let newLines = 0;
    for (let i = 0; i < 300 && newLines < after; i++) {
      await sleep(50);
      newLines = lineCount(await nginx.readAccessLog());
    }
    expect(newLines).toBe(after);
    expect(await nginx.readAccessLog()).not.toContain('/before');
  });
});
