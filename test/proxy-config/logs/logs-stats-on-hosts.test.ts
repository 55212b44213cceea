import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StatsSummary } from '../../../proxy-config/core/logs/summarize-stats.js';
import { startHostNginx } from '../../support/host-nginx.js';
import { freePort } from '../../support/ports.js';
import { seededRandom } from '../../support/seeded-random.js';
import { startTestHosts, type TestHosts } from '../../support/ssh-hosts.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../..');
const CLI = join(ROOT, 'dist/cli/main.js');

let hosts: TestHosts;
/** Where each host sees its own directory (the same path on every host, other files). */
let mp: string;

async function proxyops(...args: string[]) {
  const result = await execa('node', [CLI, ...args], { reject: false, timeout: 90_000, env: hosts.env });
  return { code: result.exitCode, stdout: result.stdout, stderr: result.stderr };
}

const pad = (n: number) => String(n).padStart(2, '0');

/**
 * A day of an edge's access log, nginx's combined format with the timing variables proxyops adds
 * (combined alone has no times to take percentiles of): every status family, 499s, 502/504 made by
 * nginx, retries, "-" times, times from 0 to 70 s, IPv4 and IPv6 clients, quoted user agents, and a
 * few lines of TLS garbage on the plain port.
 */
function edgeLog(lines: number, seed: number, hour: number, upstreams: string[]): string {
  const r = seededRandom(seed);
  const out: string[] = [];
  for (let i = 0; i < lines; i++) {
    if (r.int(0, 400) === 0) {
      out.push(`\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03 ${i}`);
      continue;
    }
    const minute = Math.floor((i / lines) * 60);
    const time = `21/Nov/2026:${pad(hour)}:${pad(minute)}:${pad(r.int(0, 59))} +0000`;
    const client = r.int(0, 3) === 0 ? `2001:db8::${r.int(1, 99)}` : `203.0.113.${r.int(1, 254)}`;
    const path = ['/', '/api/orders?page=2', '/api/users/42', '/static/app.3f9a.js', '/login'][r.int(0, 4)]!;
    const method = path === '/login' ? 'POST' : 'GET';
    const ms = [0, 1, 2, 7, 19, 48, 120, 197, 350, 900, 2_400, 30_000, 70_000][r.int(0, 12)]! + r.int(0, 30);
    const rt = (ms / 1000).toFixed(3);
    const up = upstreams[r.int(0, upstreams.length - 1)]!;
    const kind = r.int(0, 39);
    let status = ['200', '200', '200', '200', '304', '301', '404', '403', '500'][r.int(0, 8)]!;
    let timing = `uct="0.00${r.int(0, 9)}" uht="${rt}" urt="${rt}" ua="${up}" us="${status}"`;
    if (kind === 0) {
      status = '499';
      timing = `uct="0.001" uht="-" urt="${rt}" ua="${up}" us="-"`;
    } else if (kind === 1) {
      status = '502';
      timing = `uct="-" uht="-" urt="0.000" ua="${up}" us="502"`;
    } else if (kind === 2) {
      status = '504';
      timing = `uct="0.001" uht="-" urt="60.001" ua="${up}" us="504"`;
    } else if (kind === 3) {
      const other = upstreams[(upstreams.indexOf(up) + 1) % upstreams.length]!;
      timing = `uct="-, 0.001" uht="-, ${rt}" urt="0.000, ${rt}" ua="${up}, ${other}" us="502, ${status}"`;
    } else if (kind === 4) {
      status = '413';
      timing = `uct="-" uht="-" urt="-" ua="-" us="-"`;
    }
    const agent = r.int(0, 1) ? 'Mozilla/5.0 (X11; Linux x86_64) Firefox/133.0' : 'curl/8.5.0';
    out.push(
      `${client} - - [${time}] "${method} ${path} HTTP/1.1" ${status} ${r.int(0, 90_000)} "-" "${agent}" ` +
        `rt=${rt} ${timing} rid="${r.int(0, 1e9).toString(16)}" ui="-"`,
    );
  }
  return out.join('\n') + '\n';
}

/** The --json of a run without what names this run's own inputs: where the lines came from. */
function counted(summary: StatsSummary) {
  const { inputs: _inputs, formatSource: _source, malformed, damaged, ...rest } = summary;
  return {
    ...rest,
    malformed: {
      count: malformed.count,
      // The same lines: `HOST:PATH` there, the host's directory here.
      samples: malformed.samples.map(({ line, text }) => ({ line, text })),
    },
    damaged: damaged.map(({ input: _input, ...damage }) => damage),
  };
}

/** The log files of a host as this test sees them, in the order the host reads them. */
const localFiles = (name: string, files: string[]) =>
  files.map((file) => join(hosts.host(name).dir, file.slice(mp.length + 1)));

beforeAll(async () => {
  hosts = await startTestHosts(['edge-a', 'edge-b', 'edge-c'], { trusted: true });
  mp = hosts.host('edge-a').mountPoint;
  const plan: Array<[string, number, string[]]> = [
    ['edge-a', 1, ['10.0.1.11:8080', '10.0.1.12:8080']],
    ['edge-b', 2, ['10.0.1.12:8080', '10.0.1.13:8080', '[2001:db8::5]:8080']],
  ];
  for (const [name, seed, upstreams] of plan) {
    const logs = join(hosts.host(name).dir, 'logs');
    await mkdir(logs, { recursive: true, mode: 0o755 });
    // Yesterday's log, rotated and compressed, and today's; each host's its own.
    await writeFile(join(logs, 'access.log.1.gz'), gzipSync(edgeLog(3_000, seed * 10, 9, upstreams)));
    await writeFile(join(logs, 'access.log'), edgeLog(4_000 + seed * 500, seed * 10 + 1, 10, upstreams));
  }
  // An older rotation only edge-a still keeps.
  await writeFile(
    join(hosts.host('edge-a').dir, 'logs', 'access.log.2.gz'),
    gzipSync(edgeLog(200, 3, 8, ['10.0.1.11:8080'])),
  );
}, 60_000);

afterAll(async () => {
  await hosts?.teardown();
});

/** `proxyops logs stats ARGS` reading edge-a's and edge-b's logs there. */
const statsOnBoth = (...args: string[]) =>
  proxyops('logs', 'stats', '--host', 'edge-a', '--host', 'edge-b', ...args);

describe('logs stats --host: each host reads its logs there, one report over all', () => {
  const files = () => [`${mp}/logs/access.log.1.gz`, `${mp}/logs/access.log`];

  it('gives exactly the counts and percentiles of one run over both hosts’ logs concatenated', async () => {
    const remote = await statsOnBoth('--json', ...files());
    expect(remote.code, remote.stderr).toBe(0);
    const local = await proxyops(
      'logs',
      'stats',
      '--json',
      ...localFiles('edge-a', files()),
      ...localFiles('edge-b', files()),
    );
    expect(local.code, local.stderr).toBe(0);
    const merged = JSON.parse(remote.stdout) as StatsSummary;
    const one = JSON.parse(local.stdout) as StatsSummary;
    // Not a trivial match: both hosts counted, percentiles from a spread of times, 5xx of both kinds.
    expect(one.lines).toBe(3_000 * 2 + 4_500 + 5_000);
    expect(one.malformed.count).toBeGreaterThan(0);
    expect(one.latency.requestTime!.p99).toBeGreaterThan(one.latency.requestTime!.p50!);
    expect(one.proxyGenerated?.total).toBeGreaterThan(0);
    expect(one.upstreams.map((u) => u.address)).toContain('[2001:db8::5]:8080');
    expect(counted(merged)).toEqual(counted(one));
    expect(merged.inputs).toEqual([
      ...files().map((file) => `edge-a:${file}`),
      ...files().map((file) => `edge-b:${file}`),
    ]);
    expect(merged.malformed.samples[0]!.input).toBe(`edge-a:${mp}/logs/access.log.1.gz`);
  }, 120_000);

  it('prints the same table and --fail-if as a run here, over the merged state', async () => {
    const args = ['--fail-if', '5xx_ratio>0.001', '--fail-if', '499>1000000'];
    const remote = await statsOnBoth(...files(), ...args);
    const local = await proxyops(
      'logs',
      'stats',
      ...localFiles('edge-a', files()),
      ...localFiles('edge-b', files()),
      ...args,
    );
    expect(remote.code).toBe(1);
    expect(local.code).toBe(1);
    // The malformed samples name their lines where they are: `HOST:PATH` there, the host's directory here.
    const here = (text: string) =>
      text
        .replaceAll(`edge-a:${mp}`, hosts.host('edge-a').dir)
        .replaceAll(`edge-b:${mp}`, hosts.host('edge-b').dir);
    expect(here(remote.stdout)).toBe(local.stdout);
    expect(remote.stdout).toContain(`edge-a:${mp}/logs/access.log.1.gz:`);
    expect(remote.stderr).toMatch(/^proxyops: --fail-if holds: 5xx_ratio>0\.001 \(5xx_ratio=0\.\d+\)$/m);
    expect(remote.stderr).toMatch(/^proxyops: --fail-if does not hold: 499>1000000 \(499=\d+\)$/m);
  }, 120_000);

  it('with no FILE, reads the access logs the nginx running on each host writes', async () => {
    const port = await freePort();
    for (const name of ['edge-a', 'edge-b']) await startHostNginx(hosts, name, port);
    const pidFile = ['--pid-file', `${mp}/run/nginx.pid`];
    const remote = await statsOnBoth('--json', ...pidFile);
    expect(remote.code, remote.stderr).toBe(0);
    const live = [`${mp}/logs/access.log`];
    const local = await proxyops(
      'logs',
      'stats',
      '--json',
      ...localFiles('edge-a', live),
      ...localFiles('edge-b', live),
    );
    const merged = JSON.parse(remote.stdout) as StatsSummary;
    expect(merged.inputs).toEqual([`edge-a:${mp}/logs/access.log`, `edge-b:${mp}/logs/access.log`]);
    expect(counted(merged)).toEqual(counted(JSON.parse(local.stdout) as StatsSummary));
  }, 120_000);

  it('a file missing on one host: one line naming it, exit 2, no report', async () => {
    const result = await statsOnBoth('--json', `${mp}/logs/access.log.2.gz`);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      new RegExp(`^proxyops: edge-b: .*${mp}/logs/access\\.log\\.2\\.gz.*; no report \\(1 of 2 hosts read`),
    );
  }, 120_000);

  it('logs empty on every host (just rotated): nothing to count, exit 2, one line, no report', async () => {
    for (const name of ['edge-a', 'edge-b'])
      await writeFile(join(hosts.host(name).dir, 'logs', 'rotated-now.log'), '');
    const result = await statsOnBoth('--json', `${mp}/logs/rotated-now.log`);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain(
      `edge-a:${mp}/logs/rotated-now.log, edge-b:${mp}/logs/rotated-now.log: all 2 inputs are empty, nothing to count`,
    );
    // As one part of a larger total (--state-out -), an empty state is the answer, as on one machine.
    const part = await statsOnBoth('--state-out', '-', `${mp}/logs/rotated-now.log`);
    expect(part.code, part.stderr).toBe(0);
    expect((JSON.parse(part.stdout) as { lines: number }).lines).toBe(0);
  }, 120_000);

  it('a damaged .gz on one host: counted up to the damage, listed once as HOST:PATH in --json and the state, said once, exit 2', async () => {
    const gz = gzipSync(edgeLog(3_000, 7, 7, ['10.0.1.11:8080']));
    const cut = gz.subarray(0, Math.floor(gz.length / 2));
    await writeFile(join(hosts.host('edge-a').dir, 'logs', 'old.log.gz'), gz);
    await writeFile(join(hosts.host('edge-b').dir, 'logs', 'old.log.gz'), cut);
    const file = `${mp}/logs/old.log.gz`;
    const state = join(hosts.host('edge-a').dir, 'damaged.state.json');
    const remote = await statsOnBoth('--json', '--state-out', state, file);
    expect(remote.code, remote.stderr).toBe(2);
    const local = await proxyops(
      'logs',
      'stats',
      '--json',
      ...localFiles('edge-a', [file]),
      ...localFiles('edge-b', [file]),
    );
    expect(local.code).toBe(2);
    const merged = JSON.parse(remote.stdout) as StatsSummary;
    const one = JSON.parse(local.stdout) as StatsSummary;
    expect(counted(merged)).toEqual(counted(one));
    const damage = { ...one.damaged[0]!, input: `edge-b:${file}` };
    expect(damage).toMatchObject({ offset: cut.length, size: cut.length, reason: 'unexpected end of file' });
    expect(damage.lines).toBeGreaterThan(100);
    expect(merged.damaged).toEqual([damage]);
    // Once: from the state, named as the inputs are, not relayed from edge-b's stderr as well.
    const said = `proxyops: edge-b:${file} is damaged at byte ${cut.length} of ${cut.length} (unexpected end of file): its ${damage.lines} line(s) before that are counted, the rest could not be read\n`;
    expect(remote.stderr + '\n').toContain(said);
    expect(remote.stderr.split(' is damaged ')).toHaveLength(2);
    // The state of the hosts keeps it: a merge of it later says the same (its exit code is --fail-if's).
    const stored = JSON.parse(await readFile(state, 'utf8')) as { damaged: unknown };
    expect(stored.damaged).toEqual([damage]);
    const later = await proxyops('logs', 'merge', '--json', state);
    expect(later.code).toBe(0);
    expect(later.stdout).toBe(remote.stdout);
    expect(later.stderr + '\n').toContain(said);
    await rm(join(hosts.host('edge-a').dir, 'logs', 'old.log.gz'));
    await rm(join(hosts.host('edge-b').dir, 'logs', 'old.log.gz'));
  }, 120_000);

  it('an unreachable host and one with another proxyops: a line each, exit non-zero, no report', async () => {
    // The hosts share one proxyops wrapper; a file in edge-b's own directory makes it an old one.
    const wrapper = join(hosts.root, 'bin', 'proxyops');
    const real = await readFile(wrapper, 'utf8');
    await writeFile(
      wrapper,
      real.replace('exec ', `[ -e ${mp}/old-proxyops ] && { echo 0.0.1; exit 0; }\nexec `),
    );
    await writeFile(join(hosts.host('edge-b').dir, 'old-proxyops'), '');
    await hosts.lose('edge-c', 'sshd');
    try {
      const result = await statsOnBoth('--host', 'edge-c', ...files());
      expect(result.code).not.toBe(0);
      expect(result.stdout).toBe('');
      const lines = result.stderr.trim().split('\n');
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatch(
        /^proxyops: edge-b runs proxyops 0\.0\.1, this is \d+\.\d+\.\d+; install proxyops/,
      );
      expect(lines[1]).toMatch(
        /^proxyops: edge-c: lost or unreachable over ssh .*; no report \(1 of 3 hosts read/,
      );
    } finally {
      await writeFile(wrapper, real);
      await rm(join(hosts.host('edge-b').dir, 'old-proxyops'));
    }
  }, 120_000);

  /**
   * Runs `fn` with the hosts' shared proxyops wrapper doing `line` first, on edge-b only (a file in its
   * own directory says so): a proxyops there that misbehaves the way the line says.
   */
  async function withEdgeBDoing<T>(line: string, fn: () => Promise<T>): Promise<T> {
    const wrapper = join(hosts.root, 'bin', 'proxyops');
    const real = await readFile(wrapper, 'utf8');
    await writeFile(wrapper, real.replace('exec ', `[ -e ${mp}/misbehave ] && { ${line}; }\nexec `));
    await writeFile(join(hosts.host('edge-b').dir, 'misbehave'), '');
    try {
      return await fn();
    } finally {
      await writeFile(wrapper, real);
      await rm(join(hosts.host('edge-b').dir, 'misbehave'));
    }
  }

  it('a host whose proxyops prints a state but exits 1: a line naming it, no report', async () => {
    const cli = join(ROOT, 'dist/cli/main.js');
    const result = await withEdgeBDoing(
      `[ "$1" = logs ] && { ${process.execPath} ${cli} "$@"; echo "proxyops: disk full" >&2; exit 1; }`,
      () => proxyops('logs', 'stats', '--json', '--host', 'edge-a', '--host', 'edge-b', ...files()),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toMatch(/^proxyops: edge-b: disk full; no report \(1 of 2 hosts read/);
  }, 120_000);

  it('a host whose `remote access-logs` prints what is not JSON: a line naming it, no report', async () => {
    const result = await withEdgeBDoing('[ "$1" = remote ] && { echo "<html>"; exit 0; }', () =>
      proxyops('logs', 'stats', '--json', '--host', 'edge-b'),
    );
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr.trim()).toMatch(/^proxyops: edge-b: printed what is not JSON \(exit 0\); no report/);
    expect(result.stderr).not.toMatch(/SyntaxError|Unexpected token/);
  }, 120_000);

  it('hosts whose logs are in different formats: refused, their counts do not add up', async () => {
    const lines = (await readFile(join(hosts.host('edge-a').dir, 'logs', 'access.log'), 'utf8')).split('\n');
    // edge-b's copy keeps only what nginx's stock combined format writes of each line.
    const combined = lines.map((line) => line.replace(/ rt=.*$/, '')).join('\n');
    await writeFile(join(hosts.host('edge-a').dir, 'logs', 'mixed.log'), lines.join('\n'));
    await writeFile(join(hosts.host('edge-b').dir, 'logs', 'mixed.log'), combined);
    const result = await statsOnBoth(`${mp}/logs/mixed.log`);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^proxyops: edge-b: .*states merge only within one log format/);
  }, 120_000);

  it('refuses what reading hosts once cannot do, before any host is reached', async () => {
    for (const [args, message] of [
      [['--follow', 'x'], /--follow follows this machine's logs/],
      [['-'], /standard input/],
      [['--host', 'edge-a', 'x'], /names a host twice/],
      [['--pid-file', '/run/nginx.pid', 'x'], /--pid-file chooses the nginx/],
    ] as const) {
      const result = await proxyops('logs', 'stats', '--host', 'edge-a', ...args);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(message);
    }
  }, 60_000);
});
