import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBuiltCli, type CliResult, type CliRunOptions } from '../support/built-cli.js';

/** `proxyops logs stats ARGS`, the built CLI (see runBuiltCli for the options). */
const proxyops = (args: string[], options: CliRunOptions = {}): Promise<CliResult> =>
  runBuiltCli(['logs', 'stats', ...args], options);

/** Exit 2 with one `proxyops: ...` line matching `message`, and no stack trace. */
function expectRefused(result: CliResult, message: RegExp): void {
  expect(result.stderr).toMatch(message);
  expect(result.stderr.trim().split('\n')).toHaveLength(1);
  expect(result.stderr).not.toMatch(/internal error|\n\s+at /);
  expect(result.code).toBe(2);
}

const LINE =
  '10.0.0.9 - - [21/Nov/2026:10:00:01 +0000] "GET /api/x HTTP/1.1" 502 5 "-" "ua" rt=0.020 ' +
  'uct="0.001" uht="-" urt="0.015" ua="10.0.0.1:80" us="502" rid="r" ui="-"\n';

describe('proxyops logs stats: bad input (CLI)', () => {
  let dir: string;
  let log: string;
  let gz: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-logs-bad-'));
    log = join(dir, 'access.log');
    gz = join(dir, 'access.log.1.gz');
    await writeFile(log, LINE);
    await writeFile(gz, gzipSync(LINE));
    await symlink(log, join(dir, 'link.log'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('refuses an --html target that is an input (plain, .gz, a link, standard input) and leaves it alone', async () => {
    for (const [inputs, html, named] of [
      [[log], log, log],
      [[gz], gz, gz],
      [[join(dir, 'link.log')], log, join(dir, 'link.log')],
      [[log, join(dir, 'x', '..', 'access.log.1.gz')], gz, join(dir, 'x', '..', 'access.log.1.gz')],
    ] as Array<[string[], string, string]>) {
      const result = await proxyops([...inputs, '--html', html]);
      expectRefused(result, new RegExp(`--html ${html} is the input ${named}: the report would replace`));
    }
    expectRefused(
      await proxyops(['-', '--html', log], { stdinFile: log }),
      /--html .*access\.log is the input on standard input/,
    );
    expect(await readFile(log, 'utf8')).toBe(LINE);
    expect(await readFile(gz)).toEqual(gzipSync(LINE));
    const report = join(dir, 'report.html');
    expect((await proxyops([log, '--html', report, '--json'])).code).toBe(0);
    expect(await readFile(report, 'utf8')).toContain('<html');
  });

  it('refuses an empty --html and an --escape without --log-format', async () => {
    expectRefused(await proxyops([log, '--html', '']), /--html: name the report file/);
    expectRefused(await proxyops([log, '--escape', 'json']), /--escape needs --log-format/);
    expectRefused(
      await proxyops([log, '--preset', 'json', '--escape', 'json']),
      /--escape needs --log-format/,
    );
  });

  it('refuses --state-out and --prom-textfile targets like --html, and bad metrics options', async () => {
    expectRefused(await proxyops([log, '--state-out', '']), /--state-out: name the state file/);
    expectRefused(
      await proxyops([log, '--prom-textfile', log]),
      /--prom-textfile .*access\.log is the input .*access\.log: the metrics would replace it/,
    );
    expectRefused(
      await proxyops([log, '--state-out', join(dir, 'nowhere', 's.json')]),
      /--state-out .*: the directory .*nowhere does not exist/,
    );
    expectRefused(
      await proxyops([log, '--metrics-listen', '127.0.0.1:9145']),
      /--metrics-listen needs --follow/,
    );
    for (const listen of ['127.0.0.1:port', 'host:99999', 'nowhere'])
      expectRefused(
        await proxyops(['--follow', log, '--metrics-listen', listen], { killAfterMs: 3000 }),
        /--metrics-listen wants HOST:PORT \(e\.g\. 127\.0\.0\.1:9180\) or a port/,
      );
    expectRefused(
      await proxyops([log, '--label', 'host=web1']),
      /--label labels the metrics of --prom, --metrics-listen or --prom-textfile/,
    );
    expectRefused(
      await proxyops([log, '--prom-textfile', join(dir, 'm.prom'), '--label', 'bad-name=x']),
      /--label bad-name=x: give NAME=VALUE/,
    );
    expect(await readFile(log, 'utf8')).toBe(LINE);
  });

  it('--metrics-listen on a port in use is one line naming the option, and nothing is left running', async () => {
    const busy = createServer();
    await new Promise<void>((resolve) => busy.listen(0, '127.0.0.1', resolve));
    const port = (busy.address() as AddressInfo).port;
    const result = await proxyops(
      ['--follow', log, '--preset', 'proxyops', '--metrics-listen', `127.0.0.1:${port}`],
      {
        killAfterMs: 10_000,
      },
    );
    busy.close();
    expectRefused(
      result,
      new RegExp(
        `cannot listen on 127\\.0\\.0\\.1:${port}: another process uses that port; choose another with --metrics-listen`,
      ),
    );
  });

  it('counts a 5xx JSON line without a request key, also under --follow', async () => {
    const plain = await proxyops(['-', '--preset', 'json', '--json'], { stdin: '{"status":500}\n' });
    expect(plain.stderr).toBe('');
    expect(plain.code).toBe(0);
    expect(JSON.parse(plain.stdout)).toMatchObject({ records: 1, status: { '500': 1 } });
    const follow = await proxyops(['--follow', '-', '--preset', 'json', '--json'], {
      stdin: '{"status":503}\n',
    });
    expect(follow.stderr).toBe('');
    expect(follow.code).toBe(0);
    expect(JSON.parse(follow.stdout.trim().split('\n').at(-1)!)).toMatchObject({ records: 1 });
  });

  it('bounds --interval to 100 ms .. 24 h and --jobs to 1 .. 64', async () => {
    for (const interval of ['25d', '99999999999h', '1ms', '0.01s']) {
      expectRefused(
        await proxyops(['--follow', log, '--ndjson', '--interval', interval], { killAfterMs: 3000 }),
        /--interval: ".*" is out of range \(100ms to 1d\)/,
      );
      expectRefused(await proxyops([log, '--interval', interval]), /--interval: .* out of range/);
    }
    for (const jobs of ['0', '65', '1000000', '2.5', 'x'])
      expectRefused(await proxyops([log, '--jobs', jobs]), /--jobs: ".*" is not a whole number from 1 to 64/);
    expect((await proxyops([log, '--jobs', '64', '--interval', '100ms', '--json'])).code).toBe(0);
  });

  it('refuses impossible --since/--until times and a --since not before --until', async () => {
    for (const time of [
      '31/Nov/2025:10:00:00 +0000',
      '21/Nov/2025:25:00:00 +0000',
      '21/Nov/2025:10:00:00 +9999',
      '2025-02-30T00:00:00Z',
      '-1',
      '10000000000000000',
    ])
      expectRefused(await proxyops([log, '--since', time]), /--since: ".*" is not (a time|between 1970)/);
    expectRefused(
      await proxyops([log, '--since', '2026-11-22T00:00:00Z', '--until', '2026-11-21T00:00:00Z']),
      /--since \(2026-11-22T00:00:00.000Z\) must be earlier than --until/,
    );
    const inRange = await proxyops([
      log,
      '--since',
      '21/Nov/2026:10:00:00 +0000',
      '--until',
      '2026-11-21T10:00:02Z',
      '--json',
    ]);
    expect(JSON.parse(inRange.stdout).records).toBe(1);
  });

  it('refuses a reversed --status range, a bad --upstream, and a percentage on a count', async () => {
    expectRefused(
      await proxyops([log, '--status', '504-500']),
      /--status: "504-500" is a range from high to low/,
    );
    expectRefused(await proxyops([log, '--upstream', '']), /--upstream: "" is empty/);
    expectRefused(await proxyops([log, '--upstream', 'h:99999']), /no port from 1 to 65535/);
    expectRefused(await proxyops([log, '--upstream', 'not an address']), /is not an address/);
    expectRefused(await proxyops([log, '--fail-if', '5xx>50%']), /is a percentage but "5xx" is not a share/);
    const upstream = await proxyops([log, '--upstream', '10.0.0.1', '--upstream', '[::1]:80', '--json']);
    expect(JSON.parse(upstream.stdout).records).toBe(1);
  });

  it('refuses /proc files that report size 0, also under --follow', async () => {
    expectRefused(await proxyops(['/proc/self/mem']), /cannot read \/proc\/self\/mem/);
    expectRefused(await proxyops(['/proc/self/status']), /a \/proc or \/sys file/);
    expectRefused(
      await proxyops(['--follow', '/proc/self/status', '--ndjson', '--interval', '100ms'], {
        killAfterMs: 3000,
      }),
      /a \/proc or \/sys file/,
    );
    // An empty regular file is not taken for one: read, it has no line (alone, nothing to count).
    const empty = join(dir, 'empty.log');
    await writeFile(empty, '');
    const result = await proxyops([empty, log, '--json']);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).lines).toBe(1);
    expectRefused(await proxyops([empty, '--json']), /empty\.log: the input is empty, nothing to count/);
  });
});
