import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { diagnose } from '../../../proxy-config/diagnose/diagnose.js';
import { readFileTail } from '../../../proxy-config/shell/logs/read-input-file.js';

// nginx writes error-log times in local time: build the lines the same way.
function nginxTime(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${date.getFullYear()}/${pad(date.getMonth() + 1)}/${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

describe('diagnose --since', () => {
  const now = new Date('2026-11-22T03:00:00');
  let dir: string;
  let errorLog: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-since-'));
    errorLog = join(dir, 'error.log');
    const line = (at: Date, message: string) =>
      `${nginxTime(at)} [error] 7#7: *1 ${message}, client: 127.0.0.1, server: , request: "GET / HTTP/1.1", upstream: "http://127.0.0.1:9109/", host: "x"`;
    await writeFile(
      errorLog,
      [
        line(
          new Date(now.getTime() - 2 * 3_600_000),
          'connect() failed (111: Connection refused) while connecting to upstream',
        ),
        line(
          new Date(now.getTime() - 5 * 60_000),
          'upstream prematurely closed connection while reading response header from upstream',
        ),
        '',
      ].join('\n'),
    );
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('keeps only entries newer than the duration', async () => {
    const all = await diagnose({ symptom: '502', errorLog, now });
    expect(all.findings.map((finding) => finding.id).slice(0, 2)).toEqual([
      'upstream-refused',
      'upstream-reset',
    ]);
    const recent = await diagnose({ symptom: '502', errorLog, now, since: '15m' });
    expect(recent.findings.map((finding) => finding.id)[0]).toBe('upstream-reset');
    expect(recent.findings.map((finding) => finding.id)).not.toContain('upstream-refused');
    expect(recent.sources).toContain(`error log ${errorLog} (1 recognised lines)`);
  });

  it('refuses a duration it cannot read', async () => {
    await expect(diagnose({ symptom: '502', errorLog, since: '15 minutes' })).rejects.toMatchObject({
      code: 'BAD_OPTION',
    });
  });
});

describe('readFileTail', () => {
  it('reads only the end of a big log, from its first whole line', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'proxyops-tail-'));
    try {
      const file = join(dir, 'error.log');
      const lines = Array.from({ length: 100 }, (_, i) => `line ${String(i).padStart(3, '0')}`);
      await writeFile(file, `${lines.join('\n')}\n`);
      const tail = await readFileTail(file, '--error-log', 'utf8', 25);
      expect(tail).toEqual({ text: 'line 098\nline 099\n', truncated: true });
      expect(await readFileTail(file, '--error-log', 'utf8')).toMatchObject({ truncated: false });
      await expect(readFileTail(join(dir, 'missing.log'), '--error-log', 'utf8')).rejects.toMatchObject({
        code: 'BAD_OPTION',
        message: `cannot read --error-log ${join(dir, 'missing.log')}: ENOENT: no such file or directory`,
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
