import { execa, type ResultPromise } from 'execa';
import { mkdtemp, readFile, readlink, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from './support/ports.js';

/** The `sh` blocks of the README's "A ten-minute tour" section, in order. */
async function tourBlocks(): Promise<string[]> {
  const readme = await readFile(join(process.cwd(), 'README.md'), 'utf8');
  const start = readme.indexOf('## A ten-minute tour');
  const end = readme.indexOf('\n## ', start + 1);
  const section = readme.slice(start, end);
  return [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
}

/**
 * Runs a block as a reader would paste it into bash in the checkout. Two things differ, both said here:
 * the blocks run in a 0700 directory of their own, where `./proxyops` is a link to the checkout's
 * script, and port 8080 is a free port, since the test machine may have 8080 in use.
 */
function shell(block: string, cwd: string, port: number): ResultPromise<{ all: true; reject: false }> {
  const script = block
    .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
    .replace(/^\.\/proxyops up$/m, `./proxyops up --port ${port}`);
  return execa('bash', ['-e', '-o', 'pipefail', '-c', script], {
    cwd,
    all: true,
    reject: false,
    // The set-up command's stack: the embedded database, as after a bare `npm ci`.
    env: { DATABASE_URL: '', NO_COLOR: '1' },
  });
}

describe("the README's ten-minute tour, run block by block against a real stack", () => {
  let cwd: string;
  let port: number;
  let blocks: string[];
  let up: ReturnType<typeof shell> | undefined;
  let upOutput = '';

  beforeAll(async () => {
    blocks = await tourBlocks();
    // 0700, as root's home: run as root, nginx's workers (nobody) cannot enter it, and the tour must still work.
    cwd = await mkdtemp(join(tmpdir(), 'proxyops-tour-'));
    port = await freePort();
    await symlink(join(process.cwd(), 'proxyops'), join(cwd, 'proxyops'));
  });
  afterAll(async () => {
    if (up && up.exitCode === null) {
      up.kill('SIGINT');
      await up;
    }
    // The runtime directory up took outside the checkout when the workers could not enter it.
    const logs = await readlink(join(cwd, '.proxyops', 'logs')).catch(() => undefined);
    if (logs?.startsWith('/run/proxyops/')) await rm(dirname(logs), { recursive: true, force: true });
    await rm(cwd, { recursive: true, force: true });
  });

  it('has the steps the README promises: up, a request, a deploy, logs stats, diagnose, down', () => {
    expect(blocks.map((block) => block.match(/\.\/proxyops (\S+)/)?.[1] ?? 'curl')).toEqual([
      'up',
      'api',
      'deploy',
      'logs',
      'diagnose',
      'down',
    ]);
  });

  it('block 1 starts the stack, which says where it serves', async () => {
    up = shell(blocks[0]!, cwd, port);
    up.all!.setEncoding('utf8');
    up.all!.on('data', (chunk: string) => (upOutput += chunk));
    const deadline = Date.now() + 150_000;
    while (!upOutput.includes('local stack is up') && up.exitCode === null && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 50));
    expect(upOutput).toContain(`proxyops local stack is up: http://127.0.0.1:${port}`);
  }, 160_000);

  it('block 2 answers through nginx: ready, and a page of Ada’s orders', async () => {
    const result = await shell(blocks[1]!, cwd, port);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.all).toContain('"status":"ready"');
    expect(result.all).toMatch(/"items":\[\{"id":"00000000-0000-4000-9000-/);
  }, 60_000);

  it('block 3 plans, then deploys both instances', async () => {
    const result = await shell(blocks[2]!, cwd, port);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.all).toContain('deploy plan: upstream api, 2 instance(s)');
    expect(result.all).toMatch(/deployed in [\d.]+ s/);
  }, 180_000);

  it('block 4 reads the access log, and the --fail-if condition does not hold', async () => {
    const result = await shell(blocks[3]!, cwd, port);
    expect(result.exitCode, result.all).toBe(0);
    expect(result.all).toMatch(/records [1-9]\d*/);
    expect(result.all).toContain('who made the response');
  }, 60_000);

  it('block 5 diagnoses 502 from the logs and the live config (0: nothing found, 1: findings)', async () => {
    const result = await shell(blocks[4]!, cwd, port);
    expect([0, 1], result.all).toContain(result.exitCode);
    expect(result.all).toMatch(/diagnose 502: looked at config .*nginx\.conf.*access log .*error log/);
  }, 60_000);

  it('block 6 stops the stack, and up exits 0', async () => {
    const result = await shell(blocks[5]!, cwd, port);
    expect(result.exitCode, result.all).toBe(0);
    const upResult = await up!;
    expect(upResult.exitCode, upOutput).toBe(0);
    expect(upOutput).toContain('stopping the embedded database');
  }, 60_000);
});
