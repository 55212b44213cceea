import { describe, expect, it } from 'vitest';
import {
  summarizeLogWindow,
  tallyInstance,
  type NewInstanceKey,
} from '../../../proxy-config/core/deploy/log-window.js';
import { latencyEvidence } from '../../../proxy-config/core/deploy/watch-gates.js';
import {
  createLogReaderKit,
  presetFormat,
  type LogReaderKit,
} from '../../../proxy-config/core/logs/log-format-presets.js';

const kit = createLogReaderKit(presetFormat('proxyops'));

/** The split a watch makes of `text` read at once, `exclude` left out of the others. */
function splitByInstance(
  kit: LogReaderKit,
  text: string,
  key: NewInstanceKey,
  exclude: NewInstanceKey[] = [],
) {
  const tally = tallyInstance(kit, 0, key, exclude);
  tally.add(text);
  return tally.look().excluding;
}
const line = (status: number, ua: string, rt: string, ui = '-') =>
  `127.0.0.1 - - [22/Nov/2026:03:00:00 +0000] "GET /users HTTP/1.1" ${status} 12 "-" "load" rt=${rt} uct="0.000" uht="0.001" urt="${rt}" ua="${ua}" us="${status}" rid="abc" ui="${ui}"`;

/** A cache hit as nginx logs it: no upstream field set, but the instance header stored with the answer. */
const hit = (ui: string) =>
  `127.0.0.1 - - [22/Nov/2026:03:00:00 +0000] "GET /users HTTP/1.1" 200 12 "-" "load" rt=0.000 uct="-" uht="-" urt="-" ua="-" us="-" rid="abc" ui="${ui}"`;

describe('summarizeLogWindow', () => {
  it('counts statuses and requests per upstream address with the log parser', () => {
    const text = [
      line(200, '127.0.0.1:9001', '0.002'),
      line(500, '127.0.0.1:9002', '0.002'),
      line(200, '127.0.0.1:9002', '0.002'),
      'not a log line',
      '',
    ].join('\n');
    const window = summarizeLogWindow(kit, text);
    expect(window.distribution).toEqual({ total: 3, byStatus: { '200': 2, '500': 1 }, share5xx: 1 / 3 });
    expect(window.byAddress['127.0.0.1:9002']).toEqual({ total: 2, fivexx: 1, badGateway: 0, fresh: 0 });
    expect(window.skipped).toBe(1);
  });

  it('marks requests shorter than the time since the reload as fresh, for every address tried', () => {
    const text = [
      line(200, '127.0.0.1:9001', '0.900'), // in flight since before the reload: allowed
      line(200, '127.0.0.1:9001, 127.0.0.1:9002', '0.010'), // began after it: a new request to 9001
    ].join('\n');
    const window = summarizeLogWindow(kit, `${text}\n`, 300);
    expect(window.byAddress['127.0.0.1:9001']).toMatchObject({ total: 2, fresh: 1 });
    expect(window.byAddress['127.0.0.1:9002']).toMatchObject({ total: 1, fresh: 1 });
  });
});

describe('tallyInstance: the split of a window by who answered', () => {
  const SLOT = 'unix:/srv/slots/slot-0.sock';

  it('behind a slot, tells the new process apart by the name it logs, though every line names the slot', () => {
    const text = [
      line(429, SLOT, '0.001', 'slot-0.new'),
      line(429, SLOT, '0.001', 'slot-0.new'),
      line(200, SLOT, '0.003', 'slot-0.old'),
      line(200, 'unix:/srv/slots/slot-1.sock', '0.002', 'slot-1.old'),
      line(502, SLOT, '0.000'), // nginx's own answer: no instance named it
    ].join('\n');
    const { mine, others, separated } = splitByInstance(kit, `${text}\n`, { instance: 'slot-0.new' });
    expect(separated).toBe(true);
    expect(mine.distribution).toEqual({ total: 2, byStatus: { '429': 2 }, share5xx: 0 });
    expect(others.distribution.byStatus).toEqual({ '200': 2, '502': 1 });
  });

  it("leaves this deploy's earlier new instances out of the others (they run the same release), by name or address", () => {
    const slots = [
      line(500, SLOT, '0.001', 'slot-0.new'),
      line(500, 'unix:/srv/slots/slot-1.sock', '0.001', 'slot-1.new'),
      line(200, 'unix:/srv/slots/slot-1.sock', '0.001', 'slot-1.old'),
    ].join('\n');
    const byName = splitByInstance(kit, `${slots}\n`, { instance: 'slot-0.new' }, [
      { instance: 'slot-1.new' },
    ]);
    expect(byName.mine.distribution.total).toBe(1);
    expect(byName.others.distribution.byStatus).toEqual({ '200': 1 });
    const ports = [
      line(500, '127.0.0.1:9002', '0.001'),
      line(500, '127.0.0.1:9004', '0.001'),
      line(200, '127.0.0.1:9003', '0.001'),
    ].join('\n');
    const byAddress = splitByInstance(kit, `${ports}\n`, { address: '127.0.0.1:9002' }, [
      { address: '127.0.0.1:9004' },
    ]);
    expect(byAddress.others.distribution.byStatus).toEqual({ '200': 1 });
  });

  it('leaves out cache hits: they log the name stored with the answer, but no instance answered them', () => {
    const text = [
      line(200, SLOT, '0.002', 'slot-0.new'), // the miss that filled the cache
      hit('slot-0.new'), // served from the cache: no upstream attempt
      hit('slot-0.new'),
      line(200, SLOT, '0.002', 'slot-0.old'),
    ].join('\n');
    const { mine, others, separated } = splitByInstance(kit, `${text}\n`, { instance: 'slot-0.new' });
    expect(separated).toBe(true);
    expect(mine.distribution.total).toBe(1);
    expect(others.distribution.total).toBe(1);
  });

  it('on the reload path, by the address of the attempt that answered', () => {
    const text = [
      line(200, '127.0.0.1:9001', '0.002'),
      line(200, '127.0.0.1:9002, 127.0.0.1:9001', '0.002'), // 9002 failed, 9001 answered
      line(200, '127.0.0.1:9002', '0.002'),
    ].join('\n');
    const { mine, others } = splitByInstance(kit, `${text}\n`, { address: '127.0.0.1:9001' });
    expect(mine.distribution.total).toBe(2);
    expect(others.distribution.total).toBe(1);
  });

  it("a log that names no instance is not split: the window is the new process's", () => {
    const text = `${line(200, SLOT, '0.002')}\n${line(404, SLOT, '0.002')}\n`;
    const { mine, others, separated } = splitByInstance(kit, text, { instance: 'slot-0.new' });
    expect(separated).toBe(false);
    expect(mine.distribution.total).toBe(2);
    expect(others.distribution.total).toBe(0);
  });
});

describe('the request times the latency gate compares', () => {
  const SLOT = 'unix:/srv/slots/slot-0.sock';
  const ms = (n: number) => (n / 1000).toFixed(3);

  it('keeps every request time of each side with the line it was logged on, to align the two in time', () => {
    // The new process answers every other line; the other instance the lines between.
    const lines: string[] = [];
    for (let i = 0; i < 4; i++) {
      lines.push(line(200, SLOT, ms(90 - i), 'slot-0.new'));
      lines.push(line(200, 'unix:/srv/slots/slot-1.sock', ms(20 + i), 'slot-1.old'));
    }
    const { mine, others } = splitByInstance(kit, `${lines.join('\n')}\n`, { instance: 'slot-0.new' });
    expect(mine.latencyMs).toEqual([90, 89, 88, 87]);
    expect(mine.latencyLines).toEqual([1, 3, 5, 7]);
    expect(others.latencyMs).toEqual([20, 21, 22, 23]);
    expect(others.latencyLines).toEqual([2, 4, 6, 8]);
  });

  it('leaves 5xx out on both sides: a release failing in 1 ms does not make the good one beside it look slower', () => {
    // A rollback: the new process is the good release (about 60 ms); the bad one beside it answers
    // two of three requests 500 in 1 ms.
    const lines: string[] = [];
    for (let i = 0; i < 400; i++) {
      lines.push(line(200, SLOT, ms(55 + (i % 11)), 'slot-0.new'));
      lines.push(line(500, 'unix:/srv/slots/slot-1.sock', ms(1), 'slot-1.old'));
      lines.push(line(500, 'unix:/srv/slots/slot-1.sock', ms(1), 'slot-1.old'));
      lines.push(line(200, 'unix:/srv/slots/slot-1.sock', ms(55 + ((i * 7) % 11)), 'slot-1.old'));
    }
    const { mine, others } = splitByInstance(kit, `${lines.join('\n')}\n`, { instance: 'slot-0.new' });
    expect(others.latencyMs).toHaveLength(400);
    expect(others.distribution.total).toBe(1200);
    const evidence = latencyEvidence(summarizeLogWindow(kit, ''), mine, others, 2.5);
    expect(evidence.verdict).toBe('not slower');
    expect(evidence.slices.every((s) => s.against === 'others' && s.medians.against >= 55)).toBe(true);
  });

  it('tells routes apart by method and first path segment', () => {
    const request = (r: string) =>
      `127.0.0.1 - - [22/Nov/2026:03:00:00 +0000] "${r}" 200 12 "-" "load" rt=0.002 uct="0.000" uht="0.001" urt="0.002" ua="127.0.0.1:9001" us="200" rid="abc" ui="-"`;
    const text = [
      'GET /users/42?x=1 HTTP/1.1',
      'POST /graphql HTTP/1.1',
      'GET / HTTP/1.1',
      'GET /a?b HTTP/1.1',
    ]
      .map(request)
      .join('\n');
    expect(summarizeLogWindow(kit, `${text}\n`).latencyRoutes).toEqual([
      'GET /users',
      'POST /graphql',
      'GET /',
      'GET /a',
    ]);
  });
});

describe('tallyInstance', () => {
  it('grown look by look, says what splitting the whole text at once says, earlier looks unchanged', () => {
    const lines = Array.from({ length: 90 }, (_, i) =>
      line(i % 7 === 0 ? 500 : 200, `127.0.0.1:900${i % 3}`, (0.001 * (1 + (i % 11))).toFixed(3)),
    );
    const text = `${lines.join('\n')}\n`;
    const key = { address: '127.0.0.1:9001' };
    const exclude = [{ address: '127.0.0.1:9002' }];
    const tally = tallyInstance(kit, 5, key, exclude);
    const looks = [];
    for (let at = 0; at < lines.length; at += 25) {
      tally.add(`${lines.slice(at, at + 25).join('\n')}\n`);
      looks.push(tally.look());
    }
    const last = looks.at(-1)!;
    expect(last.window).toEqual(summarizeLogWindow(kit, text, 5));
    // The same split but for `fresh` (counted here by the time since a reload, there by none).
    const whole = splitByInstance(kit, text, key, exclude);
    for (const side of ['mine', 'others'] as const) {
      expect(last.excluding[side].distribution).toEqual(whole[side].distribution);
      expect(last.excluding[side].latencyMs).toEqual(whole[side].latencyMs);
      expect(last.excluding[side].latencyLines).toEqual(whole[side].latencyLines);
    }
    expect(last.split.others.distribution.total).toBe(60);
    expect(last.excluding.others.distribution.total).toBe(30);
    // A look handed out earlier is a snapshot: the lines added after it do not grow it.
    const first = splitByInstance(kit, `${lines.slice(0, 25).join('\n')}\n`, key);
    expect(looks[0]!.split.mine.latencyMs).toEqual(first.mine.latencyMs);
    expect(looks[0]!.split.others.distribution).toEqual(first.others.distribution);
    expect(looks[0]!.window.distribution.total).toBe(25);
  });
});
