import { chmod, mkdtemp, rm } from 'node:fs/promises';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../../support/ports.js';
import { CLI, startStack, stopStack, type StackProcess } from '../deploy/stack-harness.js';

describe('proxyops up --database-port: the embedded PostgreSQL on a port the user chose', () => {
  let stack: StackProcess | undefined;
  afterAll(async () => {
    await stopStack(stack);
  });

  it('serves the embedded database on that port and prints it', async () => {
    const port = await freePort();
    stack = await startStack(['--instances', '1', '--database-port', String(port)]);
    const url = `postgresql://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`;
    const line = `  database: ${url} (embedded; --database-port sets its port)`;
    // The summary goes on after "local stack is up", which is all startStack waits for.
    await expect.poll(() => stack!.output(), { timeout: 10_000 }).toContain(line);
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect((await client.query('select 1 as one')).rows).toEqual([{ one: 1 }]);
    } finally {
      await client.end();
    }
  }, 120_000);

  it('refuses a port in use, or with DATABASE_URL, before anything starts (one line, exit 2)', async () => {
    const holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const taken = (holder.address() as AddressInfo).port;
    const root = await mkdtemp(join(tmpdir(), 'proxyops-stack-dbport-'));
    await chmod(root, 0o755);
    const up = (env: Record<string, string>, ...flags: string[]) =>
      execa('node', [CLI, 'up', '--dir', join(root, 'stack'), ...flags], { reject: false, env });
    try {
      const port = String(await freePort());
      const busy = await up({ DATABASE_URL: '' }, '--port', port, '--database-port', String(taken));
      expect(busy.exitCode).toBe(2);
      expect(busy.stderr).toBe(
        `proxyops: --database-port ${taken}: 127.0.0.1:${taken} is in use (pid ${process.pid}); pick another port`,
      );
      expect(busy.stdout).not.toContain('embedded database');
      const both = await up(
        { DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/test' },
        '--port',
        port,
        '--database-port',
        '5433',
      );
      expect(both.exitCode).toBe(2);
      expect(both.stderr).toBe(
        'proxyops: --database-port is the port of the embedded database, but DATABASE_URL names another server: give one of them',
      );
      const bad = await up({ DATABASE_URL: '' }, '--port', port, '--database-port', '70000');
      expect(bad.exitCode).toBe(2);
      expect(bad.stderr).toBe('proxyops: --database-port 70000 must be a port from 1 to 65535');
    } finally {
      holder.close();
      await rm(root, { recursive: true, force: true });
    }
  }, 60_000);
});
