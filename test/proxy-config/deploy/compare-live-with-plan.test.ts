import { describe, expect, it } from 'vitest';
import {
  compareLiveWithPlan,
  serverKey,
  upstreamServers,
  type LiveNginxPicture,
  type PlannedPicture,
} from '../../../proxy-config/core/deploy/compare-live-with-plan.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

const RENDERED = [
  'events {}',
  'http {',
  '  upstream app {',
  '    server 127.0.0.2:3001 max_fails=1 fail_timeout=1s weight=1;',
  '    server 127.0.0.2:3002 max_fails=1 fail_timeout=1s weight=1;',
  '    keepalive 16;',
  '  }',
  '  server { listen 8080; location / { proxy_pass http://app; } }',
  '}',
  '',
].join('\n');

const config = (text: string) => ({
  mainFile: '/etc/nginx/nginx.conf',
  files: ['/etc/nginx/nginx.conf'],
  directives: parseNginxConfig(text, '/etc/nginx/nginx.conf'),
});

const live = (over: Partial<LiveNginxPicture> = {}): LiveNginxPicture => ({
  pid: 4242,
  configFile: '/srv/conf/current/nginx.conf',
  servers: upstreamServers(config(RENDERED), 'app'),
  mainText: RENDERED,
  followsTarget: true,
  ...over,
});

const plan = (over: Partial<PlannedPicture> = {}): PlannedPicture => ({
  upstream: 'app',
  servers: [{ address: '127.0.0.2:3001' }, { address: '127.0.0.2:3002', alternateOf: '127.0.0.2:3001' }],
  target: '/srv/conf',
  current: { file: '/srv/conf/current/nginx.conf', text: RENDERED },
  reloads: false,
  ...over,
});

describe('upstreamServers', () => {
  it('lists the server addresses of the named http upstream as written, and nothing for another name', () => {
    expect(upstreamServers(config(RENDERED), 'app')).toEqual(['127.0.0.2:3001', '127.0.0.2:3002']);
    expect(upstreamServers(config(RENDERED), 'api')).toBeUndefined();
  });
});

describe('serverKey', () => {
  it('reads an address as nginx does: brackets, case and the default port do not make two addresses', () => {
    expect(serverKey('[::1]:3002')).toBe(serverKey('::1:3002'));
    expect(serverKey('LocalHost:80')).toBe(serverKey('localhost'));
    expect(serverKey('unix:/run/slot-0.sock')).toBe('unix:/run/slot-0.sock');
    expect(serverKey('127.0.0.1:3001')).not.toBe(serverKey('127.0.0.1:3002'));
  });
});

describe('compareLiveWithPlan', () => {
  it('finds nothing when nginx runs the current config and lists exactly the planned addresses, in any order', () => {
    expect(
      compareLiveWithPlan(live({ servers: ['127.0.0.2:3002', '127.0.0.2:3001'] }), plan()),
    ).toBeUndefined();
  });

  it('a target never applied: names the missing current and the master that runs its own config', () => {
    const found = compareLiveWithPlan(
      live({ configFile: '/etc/nginx/hand.conf' }),
      plan({ current: undefined }),
    );
    expect(found).toMatch(
      /\/srv\/conf holds no applied config \(no current\), while nginx master 4242 \(-c \/etc\/nginx\/hand\.conf\) runs its own/,
    );
  });

  it('another config text: names both files and the first line they differ on', () => {
    const hand = RENDERED.replace('keepalive 16;', 'keepalive 32;');
    const found = compareLiveWithPlan(live({ mainText: hand, configFile: '/etc/nginx/hand.conf' }), plan());
    expect(found).toMatch(
      /runs another config than \/srv\/conf\/current\/nginx\.conf \(line 6 reads "keepalive 32;" there, "keepalive 16;" in current\)/,
    );
  });

  it('the same text read from a copy passes for the paths that reload nothing, not for the reload path', () => {
    expect(compareLiveWithPlan(live({ followsTarget: false }), plan())).toBeUndefined();
    expect(compareLiveWithPlan(live({ followsTarget: false }), plan({ reloads: true }))).toMatch(
      /runs a copy of \/srv\/conf\/current\/nginx\.conf, not the file itself/,
    );
  });

  it('alternates missing live: both lists, and which planned ones nginx does not list', () => {
    const found = compareLiveWithPlan(live({ servers: ['127.0.0.2:3001'] }), plan());
    expect(found).toBe(
      'upstream app of nginx master 4242 (-c /srv/conf/current/nginx.conf) lists 127.0.0.2:3001; the plan assumes 127.0.0.2:3001, 127.0.0.2:3002 (alternate of 127.0.0.2:3001) (not listed there: 127.0.0.2:3002)',
    );
  });

  it('a server nginx lists that the plan does not know is a difference too', () => {
    const found = compareLiveWithPlan(
      live({ servers: ['127.0.0.2:3001', '127.0.0.2:3002', '10.0.0.9:80'] }),
      plan(),
    );
    expect(found).toMatch(/\(not in the plan: 10\.0\.0\.9:80\)$/);
  });

  it('no such upstream in the live config', () => {
    expect(compareLiveWithPlan(live({ servers: undefined }), plan())).toMatch(
      /has no upstream app; the plan assumes it lists 127\.0\.0\.2:3001, 127\.0\.0\.2:3002/,
    );
  });

  it('several differences make one line', () => {
    const found = compareLiveWithPlan(live({ servers: ['127.0.0.2:3001'] }), plan({ current: undefined }))!;
    expect(found.split('\n')).toHaveLength(1);
    expect(found).toMatch(/no current.*; upstream app of .* lists 127\.0\.0\.2:3001;/);
  });
});

describe('compareLiveWithPlan behind a hand-written config (a spec with nginx.conf)', () => {
  const adopted = (over: Partial<LiveNginxPicture> = {}) =>
    live({
      configFile: '/etc/nginx/nginx.conf',
      mainText: '# hand-written\n',
      followsTarget: false,
      ...over,
    });
  const planAdopted = plan({ adopted: '/etc/nginx/nginx.conf', current: undefined });

  it('asks no TARGET/current: the master running that file, listing each pair, is what the plan assumes', () => {
    expect(compareLiveWithPlan(adopted({ runsAdopted: true }), planAdopted)).toBeUndefined();
  });

  it('names a master that runs another file, and an upstream missing an alternate', () => {
    const found = compareLiveWithPlan(
      adopted({ runsAdopted: false, servers: ['127.0.0.2:3001'] }),
      planAdopted,
    );
    expect(found).toContain('does not run /etc/nginx/nginx.conf (nginx.conf of the spec)');
    expect(found).toContain('not listed there: 127.0.0.2:3002');
    expect(found).not.toContain('current');
  });
});
