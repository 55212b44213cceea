// Do the deploy gates cry wolf, and do they catch a bad release? For each condition (path × core ×
// load): N deploys of the unchanged version (goal: none rolled back), then M of a bad version (goal:
// all rolled back), of the kinds BENCH_GATES_KINDS names, in turn: `slow`, 3x slower
// (`PROXYOPS_TEST_DELAY_MS` twice the median request time nginx logged, and at least twice the gate's
// 40 ms floor), `errors`, answering 5 % 500s (`PROXYOPS_TEST_ERROR_PERMILLE=50`), or `route`, one
// route 3x slower and the others unchanged (`PROXYOPS_TEST_DELAY_ROUTE` BENCH_GATES_ROUTE, `POST
// /orders`, delayed twice that route's own median). Gates: the defaults, 5xx at +2 points.
// - path `slot`: `proxyops up` with 2 instances behind slots, bad versions by `deploy --env`;
//   `alternate`: blue/green pairs of 2 hosts (127.0.0.2, .3) under a real supervisord, nginx listing
//   both addresses, deploys by `deploy --spec` whose hooks call supervisorctl;
// - core `quiet`, or `busy`: one child process spinning on one core all along;
// - load `steady`: GET at BENCH_RATE (200) req/s on 4 and POST /orders at half that on 2 keep-alive
//   connections, or `saturated`: 8 GET and 4 POST connections sending back to back; never retried.
// Every deploy's access log is also judged again by the latency rules compared in _gate-options.mjs.
// Env: BENCH_GATES_GOOD (30), BENCH_GATES_BAD (10), BENCH_GATES_KINDS (slow,errors),
// BENCH_GATES_ROUTE (POST /orders), BENCH_GATES_PATHS (slot,alternate), BENCH_GATES_CORES (quiet,busy),
// BENCH_GATES_LOADS (steady,saturated), BENCH_RATE (200); BENCH_GATES_SAVE, a directory to keep each
// deploy's appended access log and verdict in (one JSON file each), to judge other rules on the same
// deploys later with `npm run bench:gates-replay -- DIR`; BENCH_GATES_FIRST=1, every counted deploy a
// first deploy: the record of the old release's own start removed from the state file before each.
import { execFile, spawn, spawnSync } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBusyCore } from '../test/support/busy-core.mjs';
import { startSupervisedPairs } from '../test/support/supervised-pairs.mjs';
import { judgeOptions, LATENCY_OPTIONS } from './_gate-options.mjs';
import { startLoad } from './_load.mjs';
import { freePort, sleep } from './_local.mjs';

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url));
const GOOD = Number(process.env.BENCH_GATES_GOOD ?? 30);
const BAD = Number(process.env.BENCH_GATES_BAD ?? 10);
const RATE = Number(process.env.BENCH_RATE ?? 200);
const list = (name, all) => (process.env[name] ?? all).split(',').filter(Boolean);
const PATHS = list('BENCH_GATES_PATHS', 'slot,alternate');
const CORES = list('BENCH_GATES_CORES', 'quiet,busy');
const LOADS = list('BENCH_GATES_LOADS', 'steady,saturated');
/** The bad versions, by kind: what each deploys, and its column in the table. */
const ROUTE = process.env.BENCH_GATES_ROUTE ?? 'POST /orders';
const BAD_KINDS = {
  slow: '3x slower',
  errors: '5 % 500s',
  route: `${ROUTE} 3x slower`,
};
const KINDS = list('BENCH_GATES_KINDS', 'slow,errors');
for (const kind of KINDS) if (!(kind in BAD_KINDS)) throw new Error(`BENCH_GATES_KINDS: no kind ${kind}`);
/** The watch (s): the spec's default. */
const WATCH_S = 5;
/** The latency gate's floor (ms): a slow version adds twice it at least. */
const FLOOR_MS = 40;
const SAVE = process.env.BENCH_GATES_SAVE;
const FIRST = process.env.BENCH_GATES_FIRST === '1';
if (SAVE) mkdirSync(SAVE, { recursive: true });
const DATABASE_URL = process.env.DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';
const env = { ...process.env, PROXYOPS_RATE_LIMIT: '10000000' };

const run = (args, timed = false) =>
  new Promise((resolve) =>
    execFile(
      timed ? '/bin/sh' : process.execPath,
      timed ? ['-c', '"$@"; s=$?; times >&2; exit $s', 'sh', process.execPath, cli, ...args] : [cli, ...args],
      { env, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => resolve({ status: error ? (error.code ?? 1) : 0, stdout, stderr }),
    ),
  );

const medianOf = (xs) => [...xs].sort((a, b) => a - b)[Math.floor((xs.length - 1) / 2)] ?? NaN;

/** The children's user + system CPU seconds from the last line of sh's `times` ("0m1.23s 0m0.45s"). */
function timesOf(stderr) {
  const last = stderr.trim().split('\n').at(-1) ?? '';
  const [user, system] = [...last.matchAll(/(\d+)m([\d.]+)s/g)].map((m) => 60 * Number(m[1]) + Number(m[2]));
  return user === undefined || system === undefined ? NaN : user + system;
}

/** What was appended to a file since `from` (bytes). */
function appended(path, from) {
  const to = statSync(path).size;
  const buffer = Buffer.alloc(Math.max(0, to - from));
  const fd = openSync(path, 'r');
  readSync(fd, buffer, 0, buffer.length, from);
  closeSync(fd);
  return buffer.toString('utf8');
}

/**
 * Median of nginx's request times ($request_time, ms) over the last `count` lines of the access log,
 * or over those of `route` (`METHOD /prefix`) among them.
 */
function loggedMedianMs(accessLog, count, route) {
  const times = appended(accessLog, Math.max(0, statSync(accessLog).size - 400 * count))
    .trimEnd()
    .split('\n')
    .slice(-count)
    .filter((line) => route === undefined || line.includes(`"${route}`))
    .map((line) => /\brt=([\d.]+)/.exec(line)?.[1])
    .filter(Boolean)
    .map((s) => Number(s) * 1000)
    .sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? 0;
}

/**
 * Makes the next deploy a first deploy: the record of the old release's own start taken out of
 * every stack state file (instances.json) under `root`.
 */
function forgetStarts(root) {
  for (const entry of readdirSync(root, { recursive: true })) {
    if (basename(String(entry)) !== 'instances.json') continue;
    const path = join(root, String(entry));
    const { starts: _starts, ...state } = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, `${JSON.stringify(state, null, 2)}\n`);
  }
}

/** `proxyops up` with 2 instances behind slots; bad versions by `deploy --env`. */
async function slotStack() {
  const root = mkdtempSync(join(tmpdir(), 'proxyops-bench-gates-'));
  chmodSync(root, 0o755);
  const dir = join(root, 'stack');
  const port = await freePort();
  const up = spawn(
    process.execPath,
    [cli, 'up', '--dir', dir, '--port', String(port), '--instances', '2', '--watch', String(WATCH_S)].concat(
      ['--rate-limit', '10000000', '--max-5xx-increase', '0.02'],
      ['--health-interval', '0.5', '--health-threshold', '2', '--drain-margin', '0.5'],
    ),
    { env, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  up.stdout.on('data', (chunk) => (output += chunk));
  for (let waited = 0; !output.includes('local stack is up'); waited += 100) {
    if (up.exitCode !== null || waited > 120_000) throw new Error(`proxyops up did not come up:\n${output}`);
    await sleep(100);
  }
  return {
    port,
    stateRoot: dir,
    accessLog: join(dir, 'logs', 'access.log'),
    deployArgs: (kind, delayMs) => [
      'deploy',
      '--dir',
      dir,
      ...(kind === 'slow' || kind === 'route' ? ['--env', `PROXYOPS_TEST_DELAY_MS=${delayMs}`] : []),
      ...(kind === 'route' ? ['--env', `PROXYOPS_TEST_DELAY_ROUTE=${ROUTE}`] : []),
      ...(kind === 'errors' ? ['--env', 'PROXYOPS_TEST_ERROR_PERMILLE=50'] : []),
    ],
    async stop() {
      spawnSync(process.execPath, [cli, 'down', '--dir', dir], { env, stdio: 'ignore' });
      await new Promise((resolve) => (up.exitCode !== null ? resolve() : up.once('exit', resolve)));
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/** Blue/green pairs under supervisord; a bad version is a supervisord program of its own. */
async function alternateStack() {
  const port = await freePort();
  const stack = await startSupervisedPairs({
    cli,
    databaseUrl: DATABASE_URL,
    hosts: ['127.0.0.2', '127.0.0.3'],
    nginxPort: port,
    // A delay is set before the first deploy of its kind (a delay of 0 with a route is refused).
    variants: { slow: {}, errors: { PROXYOPS_TEST_ERROR_PERMILLE: '50' }, route: {} },
    deploy: { max5xxIncrease: 0.02 },
  });
  const delays = { slow: -1, route: -1 };
  return {
    port,
    stateRoot: stack.target,
    accessLog: stack.accessLog,
    deployArgs(kind, delayMs) {
      if (kind in delays && delayMs !== delays[kind])
        stack.setVariant(kind, {
          PROXYOPS_TEST_DELAY_MS: String((delays[kind] = delayMs)),
          ...(kind === 'route' ? { PROXYOPS_TEST_DELAY_ROUTE: ROUTE } : {}),
        });
      return ['deploy', '--spec', stack.writeSpec(kind === 'good' ? 'app' : kind), '--target', stack.target];
    },
    stop: () => stack.stop(),
  };
}

/** The share of `route`'s requests among the new instances' (by name behind a slot, else by address) in `text`. */
function routeShare(text, news) {
  const theirs = text
    .split('\n')
    .filter((line) =>
      news.some((who) => line.includes(who.instance ? `ui="${who.instance}"` : `${who.address}"`)),
    );
  return theirs.length === 0 ? 0 : theirs.filter((line) => line.includes(`"${ROUTE}`)).length / theirs.length;
}

/** What the latency gate said of a deploy it let through: its verdict, samples, slices, and the route's share. */
function latencySaid(events, text, news) {
  const said = events
    .filter((e) => e.type === 'status' && e.latency)
    .map(({ latency: l }) => {
      const medians = l.slices.map((s) => `${s.medians.mine}/${s.medians.against}`).join(' ');
      const routes = (l.routes ?? [])
        .map(
          (r) =>
            r.note ??
            `${r.route} ${r.verdict} (${r.slices.map((s) => `${s.medians.mine}/${s.medians.against}`).join(' ')})`,
        )
        .join(', ');
      return `${l.verdict}${l.note ? ` (${l.note})` : ''}, ${l.samples.mine} request times, warm-up ${l.warmupCut}, slice medians new/comparison ms ${medians || '-'}${routes ? `, by route ${routes}` : ''}`;
    });
  const share = routeShare(text, news);
  return `latency ${said.join('; ') || 'not read'}; ${ROUTE} ${(share * 100).toFixed(0)} % of the new instance's requests (${Math.round(share * 50)} of a slice of 50)`;
}

/** One deploy: rolled back or not, why, and what the latency options say of its new instances. */
async function deploy(stack, kind, delayMs) {
  if (FIRST) forgetStarts(stack.stateRoot);
  const from = statSync(stack.accessLog).size;
  // Through sh, whose `times` says the CPU the deploy process took: the cores it shares with the new
  // instance it judges.
  const result = await run([...stack.deployArgs(kind, delayMs), '--json'], true);
  const cpuS = timesOf(result.stderr);
  const events = result.stdout
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
  const abort = events.find((e) => e.type === 'abort');
  if (result.status !== 0 && !abort)
    throw new Error(`deploy exited ${result.status} without an abort:\n${result.stderr}`);
  const news = events.filter((e) => e.type === 'status' && e.newInstance).map((e) => e.newInstance);
  const text = appended(stack.accessLog, from);
  return {
    kind,
    rolledBack: result.status !== 0,
    // A bad version let through: what the latency gate saw of it.
    reason: abort?.reason ?? (kind === 'good' ? '' : latencySaid(events, text, news)),
    options: judgeOptions(text, news, WATCH_S, FIRST ? undefined : stack.deployed),
    cpuS,
    text,
    news,
  };
}

async function condition(path, core, load) {
  const started = performance.now();
  // The machine's load over the condition: a bench beside other work says so in its numbers.
  const loads1m = [];
  const sampler = setInterval(() => loads1m.push(loadavg()[0]), 15_000);
  const stack = path === 'slot' ? await slotStack() : await alternateStack();
  const busy = core === 'busy' ? startBusyCore() : undefined;
  const loads = [];
  const name = `${path}, ${core} core, ${load === 'steady' ? `${RATE} req/s` : 'saturated'}${FIRST ? ', first deploys' : ''}`;
  try {
    const token = spawnSync(
      process.execPath,
      [cli, 'api', 'token', '--user', '00000000-0000-4000-8000-000000000001', '--role', 'admin'],
      { encoding: 'utf8' },
    ).stdout.trim();
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const base = `http://127.0.0.1:${stack.port}`;
    const order = () => JSON.stringify({ items: [{ productName: 'bench', quantity: 1, unitPrice: 1 }] });
    const saturated = load === 'saturated';
    loads.push(
      startLoad(`${base}/users/00000000-0000-4000-8000-000000000002`, headers, {
        rate: saturated ? 1e9 : RATE,
        connections: saturated ? 8 : 4,
        retry: false,
      }),
      startLoad(`${base}/orders`, headers, {
        rate: saturated ? 1e9 : RATE / 2,
        connections: saturated ? 4 : 2,
        retry: false,
        body: order,
      }),
    );
    await sleep(5000);
    const deploys = [];
    const say = (d, i, of) =>
      process.stderr.write(
        `deploy-gates: ${name}: ${d.kind} ${i + 1}/${of}: ${d.rolledBack ? `rolled back: ${d.reason}` : `deployed${d.reason ? `; ${d.reason}` : ''}`}\n`,
      );
    // The last deploy that went through: its new instances are the old release's own start.
    const keep = (d, number = deploys.length, suffix = '') => {
      if (!d.rolledBack) stack.deployed = { text: d.text, news: d.news };
      if (SAVE) {
        const file = `${name.replace(/\W+/g, '-')}-${String(number).padStart(3, '0')}${suffix}.json`;
        const { kind, rolledBack, reason, cpuS, text, news } = d;
        writeFileSync(
          join(SAVE, file),
          JSON.stringify({ condition: name, kind, rolledBack, reason, cpuS, news, text }),
        );
      }
      delete d.text;
    };
    // A deploy that went through leaves the record of its new instances' start that the next one is
    // judged against as well; a first deploy has none and is judged once warm alone. The
    // counted deploys follow one that went through, as every deploy after the first does.
    for (let tries = 1; !stack.deployed; tries++) {
      const first = await deploy(stack, 'good');
      keep({ ...first, kind: 'first' }, 0);
      process.stderr.write(
        `deploy-gates: ${name}: first deploy (not counted): ${first.rolledBack ? `rolled back: ${first.reason}` : 'deployed'}\n`,
      );
      if (tries === 3 && !stack.deployed) throw new Error(`${name}: no first deploy went through in 3`);
    }
    for (let i = 0; i < GOOD; i++) {
      deploys.push(await deploy(stack, 'good'));
      keep(deploys.at(-1));
      say(deploys.at(-1), i, GOOD);
    }
    const medianMs = loggedMedianMs(stack.accessLog, 1000);
    const routeMedianMs = loggedMedianMs(stack.accessLog, 1000, ROUTE);
    const delays = {
      slow: Math.max(Math.round(2 * medianMs), 2 * FLOOR_MS),
      route: Math.max(Math.round(2 * routeMedianMs), 2 * FLOOR_MS),
    };
    for (let i = 0; i < BAD; i++) {
      const kind = KINDS[i % KINDS.length];
      deploys.push(await deploy(stack, kind, delays[kind]));
      keep(deploys.at(-1));
      say(deploys.at(-1), i, BAD);
      // A bad version let through now serves: the next bad one would be judged against it, not
      // against the good one. The good one goes back first (not counted).
      for (let tries = 1; !deploys.at(-1).rolledBack && deploys.at(-1).kind !== 'good'; tries++) {
        const back = await deploy(stack, 'good');
        keep({ ...back, kind: 'back' }, deploys.length, `r${tries}`);
        process.stderr.write(
          `deploy-gates: ${name}: the good version back (not counted): ${back.rolledBack ? `rolled back: ${back.reason}` : 'deployed'}\n`,
        );
        if (!back.rolledBack) break;
        if (tries === 3) throw new Error(`${name}: the good version did not go back in 3 deploys`);
      }
    }
    const of = (kind) => deploys.filter((d) => d.kind === kind);
    const back = (kind) => `${of(kind).filter((d) => d.rolledBack).length} of ${of(kind).length}`;
    // An option rolls a deploy back when it would have rolled back any of its new instances.
    const optionBack = (kind, option) =>
      `${of(kind).filter((d) => d.options.some((o) => o[option])).length} of ${of(kind).length}`;
    const served = await Promise.all(loads.splice(0).map((l) => l.stop()));
    return {
      name,
      medianMs,
      delays,
      routeMedianMs,
      good: back('good'),
      bad: Object.fromEntries(KINDS.map((kind) => [kind, back(kind)])),
      options: Object.keys(LATENCY_OPTIONS).map((option) => ({
        option,
        good: optionBack('good', option),
        slow: optionBack('slow', option),
      })),
      reasons: deploys
        .filter((d) => (d.kind === 'good') === d.rolledBack)
        .map((d) => `${d.kind}: ${d.rolledBack ? d.reason : `deployed; ${d.reason}`}`),
      served: served
        .map(
          (s, i) => `${['GET', 'POST'][i]} ${s.served} answered, ${s.errors} unanswered, ${s.non2xx} non-2xx`,
        )
        .join('; '),
      minutes: (performance.now() - started) / 60_000,
      cpuS: medianOf(deploys.map((d) => d.cpuS)),
      loadAverage: loads1m.length
        ? `${Math.min(...loads1m).toFixed(1)} to ${Math.max(...loads1m).toFixed(1)}`
        : loadavg()[0].toFixed(1),
    };
  } finally {
    clearInterval(sampler);
    await Promise.all(loads.map((l) => l.stop()));
    await busy?.stop();
    await stack.stop();
  }
}

const results = [];
for (const path of PATHS)
  for (const core of CORES)
    for (const load of LOADS) {
      const result = await condition(path, core, load);
      results.push(result);
      for (const reason of result.reasons) console.log(`deploy-gates: ${result.name}: missed: ${reason}`);
      console.log(
        `deploy-gates: ${result.name}: median ${result.medianMs.toFixed(0)} ms, slow version +${result.delays.slow} ms${KINDS.includes('route') ? `; ${ROUTE} median ${result.routeMedianMs.toFixed(0)} ms, +${result.delays.route} ms on it` : ''}; load ${result.served}; ${result.minutes.toFixed(1)} min; load average ${result.loadAverage}; deploy process CPU ${result.cpuS.toFixed(2)} s a deploy (median)`,
      );
    }
console.log(
  `\n| condition | unchanged rolled back | ${KINDS.map((kind) => `${BAD_KINDS[kind]} rolled back`).join(' | ')} |`,
);
console.log(`|---|---|${KINDS.map(() => '---|').join('')}`);
for (const r of results)
  console.log(`| ${r.name} | ${r.good} | ${KINDS.map((kind) => r.bad[kind]).join(' | ')} |`);
// The options are judged on the unchanged and the 3x slower deploys only (on the whole slice).
if (GOOD > 0 || KINDS.includes('slow')) {
  console.log('\nThe latency rules judged again on the same deploys (unchanged / 3x slower rolled back):\n');
  console.log(`| rule | ${results.map((r) => r.name).join(' | ')} |`);
  console.log(`|---|${results.map(() => '---|').join('')}`);
  for (const option of Object.keys(LATENCY_OPTIONS))
    console.log(
      `| ${option} | ${results
        .map((r) => r.options.find((o) => o.option === option))
        .map((o) => `${o.good} / ${o.slow}`)
        .join(' | ')} |`,
    );
}
const ok = results.every((r) => r.good.startsWith('0 of') && r.reasons.length === 0);
console.log(
  `\ndeploy-gates: ${ok ? 'OK' : 'goal missed'} (goal per condition: 0 unchanged rolled back, every bad one rolled back)`,
);
process.exitCode = ok ? 0 : 1;
