import { describe, expect, it } from 'vitest';
import {
  blockServers,
  pairKey,
  servingLineRefusal,
  type UpstreamChange,
} from '../../../../proxy-config/core/adopt/serving-lines.js';
import { tree } from './adopt-fixtures.js';

const FILE = '/etc/nginx/conf.d/upstreams.conf';
const ADOPTED = [
  'upstream backend {',
  '\tserver 127.0.0.1:18301 fail_timeout=0;',
  '\tserver 127.0.0.1:18311 fail_timeout=0;  # proxyops: alternate of 127.0.0.1:18301',
  '\tserver 127.0.0.1:18302 fail_timeout=0;',
  '\tserver 127.0.0.1:18312 fail_timeout=0;  # proxyops: alternate of 127.0.0.1:18302',
  '}',
  '',
].join('\n');
const ORIGINAL = [
  'upstream backend {',
  '\tserver 127.0.0.1:18301;',
  '\tserver 127.0.0.1:18302;',
  '}',
  '',
].join('\n');

const key = (port: number) => `127.0.0.1 ${port}`;
const servers = (text: string) => blockServers(tree({ [FILE]: text }), 'backend')!;
const PAIRS = new Set([
  pairKey('127.0.0.1:18301', '127.0.0.1:18311'),
  pairKey('127.0.0.1:18302', '127.0.0.1:18312'),
]);

/** The change from the adopted block to `after`, with instances running at `running`. */
function change(after: string, running: number[], specPairs = PAIRS): UpstreamChange {
  return {
    upstream: 'backend',
    before: servers(ADOPTED),
    after: servers(after).map((s) => s.key),
    running: running.map(key),
    specPairs,
  };
}

describe('the server lines of a block and their pairs', () => {
  it('pairs each marked line with its primary, both ways', () => {
    expect(servers(ADOPTED)).toEqual([
      { address: '127.0.0.1:18301', key: key(18301), partner: '127.0.0.1:18311' },
      { address: '127.0.0.1:18311', key: key(18311), partner: '127.0.0.1:18301' },
      { address: '127.0.0.1:18302', key: key(18302), partner: '127.0.0.1:18312' },
      { address: '127.0.0.1:18312', key: key(18312), partner: '127.0.0.1:18302' },
    ]);
    expect(servers(ORIGINAL).every((s) => s.partner === undefined)).toBe(true);
    expect(blockServers(tree({ [FILE]: ORIGINAL }), 'other')).toBeUndefined();
  });
});

describe('a change that drops the line of a serving address (drops-serving-line)', () => {
  it('lets a change through that keeps every running address', () => {
    // Undo while the primaries serve: the alternates nothing listens on go.
    expect(servingLineRefusal([change(ORIGINAL, [18301, 18302])], 'adopt.yaml')).toBeUndefined();
    // Nothing runs anywhere: nothing to cut off.
    expect(servingLineRefusal([change(ORIGINAL, [])], 'adopt.yaml')).toBeUndefined();
  });

  it('refuses the undo after a deploy moved every instance to the alternates, naming the deploy back', () => {
    const refusal = servingLineRefusal([change(ORIGINAL, [18311, 18312])], 'adopt.yaml');
    expect(refusal?.cut).toEqual([
      { upstream: 'backend', addresses: ['127.0.0.1:18311', '127.0.0.1:18312'] },
    ]);
    expect(refusal?.text).toBe(
      'upstream backend: the change drops the line of 127.0.0.1:18311, 127.0.0.1:18312, where instances serve now: nginx would send them nothing and nothing would serve the lines it keeps; deploy the upstream back to the addresses the change keeps first: proxyops deploy --spec adopt.yaml --upstream backend (each instance moves to the other address of its pair: 127.0.0.1:18311 -> 127.0.0.1:18301, 127.0.0.1:18312 -> 127.0.0.1:18302), then run this again; nothing changed [drops-serving-line]',
    );
  });

  it('names the spec the block was adopted with when the given spec no longer pairs the instance', () => {
    // alt2: 18302's alternate 18312 -> 18322 while 18301 and 18312 serve.
    const alt2 = ADOPTED.replace(/18312/g, '18322');
    const pairs = new Set([
      pairKey('127.0.0.1:18301', '127.0.0.1:18311'),
      pairKey('127.0.0.1:18302', '127.0.0.1:18322'),
    ]);
    const refusal = servingLineRefusal([change(alt2, [18301, 18312], pairs)], 'alt2.yaml');
    expect(refusal?.text).toBe(
      'upstream backend: the change drops the line of 127.0.0.1:18312, where an instance serves now: nginx would send it nothing; deploy the upstream back to the addresses the change keeps first: proxyops deploy --spec ADOPTED (the spec this block was adopted with: alt2.yaml no longer pairs 127.0.0.1:18312 with 127.0.0.1:18302) --upstream backend (each instance moves to the other address of its pair: 127.0.0.1:18301 -> 127.0.0.1:18311, 127.0.0.1:18312 -> 127.0.0.1:18302), then run this again; nothing changed [drops-serving-line]',
    );
  });

  it('names a hand-over when a deploy would move another instance onto a dropped line', () => {
    // Undo with 18301 (primary) and 18312 (alternate) serving: a deploy would put 18301's on 18311.
    const refusal = servingLineRefusal([change(ORIGINAL, [18301, 18312])], 'adopt.yaml');
    expect(refusal?.text).toBe(
      'upstream backend: the change drops the line of 127.0.0.1:18312, where an instance serves now: nginx would send it nothing; start an instance on the kept address of each pair and hand over to it first: proxyops deploy --spec adopt.yaml --upstream backend --replace 127.0.0.1:18312 --with 127.0.0.1:18302, then run this again; nothing changed [drops-serving-line]',
    );
  });

  it('names no command when no kept address pairs the dropped one', () => {
    const refusal = servingLineRefusal(
      [change('upstream backend {\n\tserver 127.0.0.1:18399;\n}\n', [18301, 18302])],
      'adopt.yaml',
    );
    expect(refusal?.text).toMatch(
      /drops the line of 127\.0\.0\.1:18301, 127\.0\.0\.1:18302, .*; move those instances to addresses the change keeps \(or stop them, if they are meant to go\) first, then run this again; nothing changed \[drops-serving-line\]$/,
    );
  });
});
