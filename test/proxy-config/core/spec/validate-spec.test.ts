import { describe, expect, it } from 'vitest';
import { isProxyopsError } from '../../../../proxy-config/core/errors.js';
import { CROSS_FIELD_RULES } from '../../../../proxy-config/core/spec/cross-field-rules.js';
import { DEFAULTS } from '../../../../proxy-config/core/spec/defaults.js';
import type { SpecProblem } from '../../../../proxy-config/core/spec/spec-problem.js';
import { parseSpec, validateSpec } from '../../../../proxy-config/core/spec/validate-spec.js';
import { yamlAliasBomb } from '../../../support/yaml-alias-bomb.js';

/** A small valid spec; tests change one thing at a time. */
function baseSpec(): Record<string, unknown> {
  return {
    version: 1,
    timeouts: { outerLoadBalancer: 60, proxyRead: 30 },
    upstreams: {
      api: {
        servers: [{ host: '127.0.0.1', port: 8080 }],
        keepaliveTimeout: 60,
        app: { requestTimeout: 25, keepAliveTimeout: 65 },
      },
    },
    servers: [{ names: ['a.example'], listen: [{ port: 80 }], routes: [{ path: '/', upstream: 'api' }] }],
  };
}

/** The base spec with the value at a dotted path (`servers.0.routes.0.upstream`) replaced; `undefined` deletes it. */
function changed(...edits: Array<[string, unknown]>): Record<string, unknown> {
  const data = baseSpec();
  for (const [path, value] of edits) {
    const keys = path.split('.');
    const last = keys.pop()!;
    let node = data as Record<string, unknown>;
    for (const key of keys) {
      node[key] ??= {};
      node = node[key] as Record<string, unknown>;
    }
    if (value === undefined) delete node[last];
    else node[last] = value;
  }
  return data;
}

function problemsOf(data: unknown): SpecProblem[] {
  try {
    validateSpec(data, 'spec.yaml');
  } catch (error) {
    if (isProxyopsError(error) && error.code === 'SPEC_INVALID') return error.details as SpecProblem[];
    throw error;
  }
  return [];
}

describe('validateSpec: schema', () => {
  it('accepts the base spec and fills defaults from DEFAULTS', () => {
    const spec = validateSpec(baseSpec(), 'spec.yaml');
    expect(spec.limits.clientMaxBodySize).toBe(DEFAULTS.limits.clientMaxBodySize);
    expect(spec.accessLog).toMatchObject({ buffer: '64k', flush: 5, path: DEFAULTS.accessLog.path });
    expect(spec.errorLog.level).toBe('warn');
    expect(spec.certificates.warnDays).toBe(30);
    expect(spec.upstreams.api?.healthCheck).toEqual(DEFAULTS.healthCheck);
  });

  it('names the path and the rule: upstreams.api.servers[1].port must be <= 65535', () => {
    const data = changed(['upstreams.api.servers.1', { host: '127.0.0.1', port: 70000 }]);
    expect(problemsOf(data)).toEqual([
      { path: 'upstreams.api.servers[1].port', rule: 'maximum', message: 'must be <= 65535' },
    ]);
    expect(() => validateSpec(data, 'spec.yaml')).toThrow(
      'upstreams.api.servers[1].port: must be <= 65535 [maximum]',
    );
  });

  it('reports every problem at once: missing, unknown, wrong enum, bad size', () => {
    const data = changed(
      ['servers.0.listen', undefined],
      ['servers.0.listn', []],
      ['mode', 'cloud'],
      ['limits.clientMaxBodySize', '1 MB'],
    );
    const found = problemsOf(data).map((p) => `${p.path} ${p.rule}`);
    expect(found).toEqual([
      'limits.clientMaxBodySize pattern',
      'mode enum',
      'servers[0].listen required',
      'servers[0].listn additionalProperties',
    ]);
  });

  it('says what a snippet, a size or an address must look like in words, not as a regex', () => {
    const problems = problemsOf(changed(['servers.0.routes.0.snippets', ['proxy_buffering off;']]));
    expect(problems).toEqual([
      {
        path: 'servers[0].routes[0].snippets[0]',
        rule: 'pattern',
        message: 'must be one nginx directive without its ";" and with no "{", "}", "#" or line break',
      },
    ]);
    expect(problemsOf(changed(['limits.clientMaxBodySize', '1 MB']))[0]?.message).toBe(
      'must be an nginx size: a number, optionally followed by k, m or g, such as 512k or 1m',
    );
    expect(problemsOf(changed(['trustedProxies', { addresses: ['lb.example'] }]))[0]?.message).toBe(
      'must be an IP address or range, such as 10.0.0.7, 10.0.0.0/8 or 2001:db8::/32 (no host names)',
    );
    // Patterns without words keep ajv's message.
    expect(problemsOf(changed(['servers.0.routes.0.path', 'api']))[0]?.message).toMatch(
      /^must match pattern/,
    );
  });

  it('accepts "auto" or a positive integer for worker processes, nothing else', () => {
    expect(problemsOf(changed(['workers.processes', 'auto']))).toEqual([]);
    expect(problemsOf(changed(['workers.processes', 4]))).toEqual([]);
    expect(problemsOf(changed(['workers.processes', 'many'])).map((p) => p.path)).toEqual([
      'workers.processes',
    ]);
    expect(problemsOf(changed(['workers.processes', 0])).map((p) => p.path)).toEqual(['workers.processes']);
  });

  it('refuses durations nginx would write as 0ms: under 1 ms', () => {
    expect(problemsOf(changed(['timeouts.proxyConnect', 0.001]))).toEqual([]);
    expect(problemsOf(changed(['timeouts.proxyConnect', 0.0004]))).toEqual([
      { path: 'timeouts.proxyConnect', rule: 'minimum', message: 'must be >= 0.001' },
    ]);
    expect(problemsOf(changed(['servers.0.routes.0.timeouts', { read: 0.0001 }])).map((p) => p.path)).toEqual(
      ['servers[0].routes[0].timeouts.read'],
    );
  });

  it('refuses control characters in paths, which would end up in nginx.conf', () => {
    const paths = (edit: [string, unknown]) => problemsOf(changed(edit)).map((p) => `${p.path} ${p.rule}`);
    expect(paths(['servers.0.routes.0.path', '/a\u0000b'])).toEqual(['servers[0].routes[0].path pattern']);
    expect(paths(['servers.0.routes.0.path', '/a\u007fb'])).toEqual(['servers[0].routes[0].path pattern']);
    expect(paths(['paths.pidFile', '/run/\u001bx.pid'])).toEqual(['paths.pidFile pattern']);
    expect(paths(['accessLog.path', '/var/log/a\u0001.log'])).toContain('accessLog.path pattern');
    expect(paths(['upstreams.api.deploy', { command: ['node', 'a\u0000b'] }])).toEqual([
      'upstreams.api.deploy.command[1] pattern',
    ]);
  });

  it('bounds sizes and counts by what nginx accepts, naming the field', () => {
    expect(problemsOf(changed(['limits.clientMaxBodySize', '1024g']))).toEqual([]);
    expect(problemsOf(changed(['limits.clientMaxBodySize', '99999999999999999999g']))).toEqual([
      { path: 'limits.clientMaxBodySize', rule: 'maxSize', message: 'must be at most 1024g' },
    ]);
    // nginx -t takes buffer=1024m; only the g suffix and zero are its own refusals.
    expect(problemsOf(changed(['accessLog.buffer', '1024m']))).toEqual([]);
    expect(problemsOf(changed(['accessLog.buffer', '1048577m']))).toEqual([
      { path: 'accessLog.buffer', rule: 'maxSize', message: 'must be at most 1024g' },
    ]);
    for (const buffer of ['1g', '0k'])
      expect(problemsOf(changed(['accessLog.buffer', buffer])).map((p) => `${p.path} ${p.rule}`)).toEqual([
        'accessLog.buffer pattern',
      ]);
    expect(problemsOf(changed(['upstreams.api.keepaliveRequests', 1e20]))).toEqual([
      { path: 'upstreams.api.keepaliveRequests', rule: 'maximum', message: 'must be <= 1000000000' },
    ]);
    expect(problemsOf(changed(['workers.processes', 1e20])).map((p) => `${p.path} ${p.rule}`)).toContain(
      'workers.processes maximum',
    );
  });

  it('reports a size-or-null field by the alternative its value has the type of', () => {
    expect(problemsOf(changed(['accessLog.flush', 0]))).toEqual([
      { path: 'accessLog.flush', rule: 'minimum', message: 'must be >= 0.001' },
    ]);
    // A value of neither type: both alternatives are what it could be.
    expect(problemsOf(changed(['accessLog.buffer', 5])).map((p) => p.message)).toEqual([
      'must be string',
      'must be null',
    ]); // An object-or-null holding an object: what is wrong inside it, not "must be null".
    expect(problemsOf(changed(['security', { hsts: { maxAge: '1y' } }]))).toEqual([
      { path: 'security.hsts.maxAge', rule: 'type', message: 'must be integer' },
    ]);
  });

  it('takes nginx.conf in place of servers: nothing to render, state and pid file defaulted', () => {
    const data = changed(['servers', undefined], ['nginx', { conf: '/etc/nginx/nginx.conf' }]);
    expect(problemsOf(data)).toEqual([]);
    const spec = validateSpec(data, 'spec.yaml');
    expect(spec.nginx).toEqual({ conf: '/etc/nginx/nginx.conf', state: DEFAULTS.nginx.state });
    expect(spec.servers).toEqual([]);
    const given = changed(
      ['servers', undefined],
      ['nginx', { conf: '/etc/nginx/nginx.conf', pidFile: '/run/n.pid', state: '/srv/proxyops' }],
    );
    expect(validateSpec(given, 'spec.yaml').nginx).toEqual({
      conf: '/etc/nginx/nginx.conf',
      pidFile: '/run/n.pid',
      state: '/srv/proxyops',
    });
    // A rendered spec has no nginx field at all.
    expect(validateSpec(baseSpec(), 'spec.yaml').nginx).toBeUndefined();
  });

  it('still requires servers without nginx.conf, and nginx.conf is required within nginx', () => {
    expect(problemsOf(changed(['servers', undefined]))).toEqual([
      { path: 'servers', rule: 'required', message: 'is required' },
    ]);
    const found = problemsOf(changed(['servers', undefined], ['nginx', { state: '/srv/p', pid: '/x' }]));
    expect(found.map((p) => `${p.path} ${p.rule}`)).toEqual([
      'nginx.conf required',
      'nginx.pid additionalProperties',
    ]);
    expect(problemsOf(changed(['servers', undefined], ['nginx', { conf: 'nginx.conf' }]))).toEqual([
      { path: 'nginx.conf', rule: 'pattern', message: expect.stringMatching(/^must match pattern/) },
    ]);
  });

  it('refuses servers beside nginx.conf in one line naming the config', () => {
    expect(() => validateSpec(changed(['nginx', { conf: '/etc/nginx/nginx.conf' }]), 'spec.yaml')).toThrow(
      "servers: is refused with nginx.conf (/etc/nginx/nginx.conf): that config's own server blocks serve; remove servers, or drop nginx to render them [adopted-config-renders-no-servers]",
    );
  });

  it('turns YAML syntax errors into SPEC_UNREADABLE with line and column', () => {
    expect(() => parseSpec('version: 1\nservers: [\n', 'bad.yaml')).toThrow(
      /bad\.yaml:\d+:\d+: not valid YAML/,
    );
  });

  it('refuses an alias bomb and an unresolved alias as SPEC_UNREADABLE, not as a crash', () => {
    const unreadable = (text: string) => {
      try {
        parseSpec(text, 'bomb.yaml');
      } catch (error) {
        return isProxyopsError(error)
          ? `${error.code} ${error.message}`
          : `not a ProxyopsError: ${String(error)}`;
      }
      return 'parsed';
    };
    expect(unreadable(yamlAliasBomb())).toMatch(
      /^SPEC_UNREADABLE bomb\.yaml: not valid YAML\/JSON: Excessive alias count/,
    );
    expect(unreadable('version: 1\nmode: *nowhere\n')).toMatch(
      /^SPEC_UNREADABLE bomb\.yaml: .*Unresolved alias/,
    );
  });
});

describe('validateSpec: cross-field rules', () => {
  it('pins the rule ids', () => {
    expect(CROSS_FIELD_RULES.map((r) => r.id)).toEqual([
      'adopted-config-renders-no-servers',
      'route-upstream-exists',
      'proxy-timeout-below-outer',
      'app-timeout-below-proxy',
      'app-keepalive-above-upstream-keepalive',
      'rlimit-covers-connections',
      'route-body-within-global',
      'tls-listener-has-certificate',
      'redirect-needs-tls-listener',
      'unique-location-path',
      'server-has-locations',
      'cache-has-routes',
      'deploy-command-or-hooks',
      'alternate-pairs-distinct',
    ]);
  });

  const cases: Array<[rule: string, edits: Array<[string, unknown]>, path: string]> = [
    ['adopted-config-renders-no-servers', [['nginx', { conf: '/etc/nginx/nginx.conf' }]], 'servers'],
    ['route-upstream-exists', [['servers.0.routes.0.upstream', 'web']], 'servers[0].routes[0].upstream'],
    ['proxy-timeout-below-outer', [['timeouts.proxyRead', 60]], 'timeouts.proxyRead'],
    [
      'proxy-timeout-below-outer',
      [['servers.0.routes.0.timeouts', { read: 90 }]],
      'servers[0].routes[0].timeouts.read',
    ],
    [
      'app-timeout-below-proxy',
      [['upstreams.api.app.requestTimeout', 30]],
      'upstreams.api.app.requestTimeout',
    ],
    [
      'app-keepalive-above-upstream-keepalive',
      [['upstreams.api.app.keepAliveTimeout', 60]],
      'upstreams.api.app.keepAliveTimeout',
    ],
    [
      'rlimit-covers-connections',
      [['workers', { connections: 1024, rlimitNofile: 2047 }]],
      'workers.rlimitNofile',
    ],
    [
      'route-body-within-global',
      [['servers.0.routes.0.clientMaxBodySize', '2m']],
      'servers[0].routes[0].clientMaxBodySize',
    ],
    ['tls-listener-has-certificate', [['servers.0.listen.1', { port: 443, tls: true }]], 'servers[0].tls'],
    ['redirect-needs-tls-listener', [['servers.0.redirectToHttps', true]], 'servers[0].redirectToHttps'],
    [
      'unique-location-path',
      [['servers.0.static', [{ path: '/', root: '/srv' }]]],
      'servers[0].static[0].path',
    ],
    ['server-has-locations', [['servers.0.routes', []]], 'servers[0]'],
    ['cache-has-routes', [['cache', { maxSize: '2g' }]], 'cache'],
    [
      'deploy-command-or-hooks',
      [['upstreams.api.deploy', { command: ['app'], stop: ['systemctl', 'stop', 'app@{port}'] }]],
      'upstreams.api.deploy',
    ],
    ['deploy-command-or-hooks', [['upstreams.api.deploy', { watch: 3 }]], 'upstreams.api.deploy'],
    [
      'alternate-pairs-distinct',
      [['upstreams.api.servers.0.alternate', 8080]],
      'upstreams.api.servers[0].alternate',
    ],
    [
      'alternate-pairs-distinct',
      [['upstreams.api.servers.1', { host: '127.0.0.1', port: 8081, alternate: '127.0.0.1:8080' }]],
      'upstreams.api.servers[1]',
    ],
  ];

  it('reads alternate as a port on the same host or as HOST:PORT, and takes hooks in place of command', () => {
    const data = changed(
      ['upstreams.api.servers.0.alternate', 8081],
      ['upstreams.api.servers.1', { host: '10.0.0.8', port: 3001, alternate: '[::1]:3002' }],
      ['upstreams.api.deploy', { start: ['systemctl', 'start', 'app@{port}'], ready: '/ready' }],
    );
    expect(problemsOf(data)).toEqual([]);
    const spec = validateSpec(data, 'spec.yaml');
    expect(spec.upstreams.api!.servers.map((s) => s.alternate)).toEqual([
      { host: '127.0.0.1', port: 8081 },
      { host: '::1', port: 3002 },
    ]);
    expect(spec.upstreams.api!.deploy).toMatchObject({
      start: ['systemctl', 'start', 'app@{port}'],
      ready: '/ready',
    });
  });

  it.each(cases)('%s fires at the field that breaks it', (rule, edits, path) => {
    expect(problemsOf(baseSpec())).toEqual([]);
    const problems = problemsOf(changed(...edits));
    expect(problems.map((p) => [p.rule, p.path])).toEqual([[rule, path]]);
  });

  it('lets a route exceed the global body limit when allowLargerBody is set', () => {
    const data = changed(
      ['servers.0.routes.0.clientMaxBodySize', '50m'],
      ['servers.0.routes.0.allowLargerBody', true],
    );
    expect(problemsOf(data)).toEqual([]);
  });

  it('treats the timeout chain as strict: equal inner and outer timeouts fail', () => {
    expect(problemsOf(changed(['upstreams.api.app.requestTimeout', 30]))[0]?.message).toBe(
      'must be shorter than timeouts.proxyRead (30 s) used by servers[0].routes[0], is 30 s',
    );
  });
});
