import { chmod, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lintNginxConfig, lintNginxConfigFiles } from '../../../proxy-config/config/lint-config.js';
import {
  directivesAllowedIn,
  isNginxDirective,
} from '../../../proxy-config/core/nginx-config/check-directives.js';
import {
  DIRECTIVES_ELSEWHERE,
  NGINX_OWN_MODULES,
} from '../../../proxy-config/core/nginx-config/directives-elsewhere.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import {
  familyOfModuleFile,
  isDirectiveElsewhere,
  nearNames,
} from '../../../proxy-config/core/nginx-config/unknown-directives.js';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { DEFAULTS } from '../../../proxy-config/core/spec/defaults.js';
import { NJS_MODULE } from '../../../proxy-config/core/render/nginx-modules.js';

/** `severity line: what` of each directive-unknown finding of a config given as text. */
function unknown(text: string, file = 'nginx.conf'): string[] {
  const config = { mainFile: file, files: [file], directives: parseNginxConfig(text, file) };
  return lintNginxConfig(config)
    .findings.filter((f) => f.ruleId === 'directive-unknown')
    .map((f) => `${f.severity} ${f.line}: ${f.what}`);
}

/** A whole config: `http` holds `body` inside one server, after `before` at the top level. */
const whole = (body: string, before = '') => `${before}
events {}
http {
  server {
    listen 127.0.0.1:8080;
    ${body}
  }
}
`;

describe('directive-unknown: the typos found in the wild are errors naming the directive meant', () => {
  it.each([
    ['ssl_key /etc/ssl/x.key;', 'ssl_key', 'server', 'ssl_certificate_key or ssl_session_ticket_key'],
    ['location / { proxy_set_heade Host $host; }', 'proxy_set_heade', 'location', 'proxy_set_header'],
    [
      'location / { proxy_pass_headers X-Accel-Expires; }',
      'proxy_pass_headers',
      'location',
      'proxy_pass_header or proxy_pass_request_headers',
    ],
    ['client_max_body_sise 10m;', 'client_max_body_sise', 'server', 'client_max_body_size'],
    ['client-max-body-size 10m;', 'client-max-body-size', 'server', 'client_max_body_size'],
    ['sever_name example.com;', 'sever_name', 'server', 'server_name'],
    ['location / { porxy_pass http://app; }', 'porxy_pass', 'location', 'proxy_pass'],
    ['location / { Proxy_Pass http://app; }', 'Proxy_Pass', 'location', 'proxy_pass'],
    ['location / { proxy_read_timout 60s; }', 'proxy_read_timout', 'location', 'proxy_read_timeout'],
    ['location / { limit_except GET { deny_all; } }', 'deny_all', 'limit_except', 'deny all'],
    ['location / { if ($x) { rewite ^ /y; } }', 'rewite', 'if in location', 'rewrite'],
  ])('%s', (body, name, context, meant) => {
    expect(unknown(whole(body))).toEqual([
      `error 6: unknown directive "${name}" in ${context}: meant ${meant}? nginx -t refuses it`,
    ]);
  });

  // Lines as published (docs and READMEs found with the search tool), each a config nginx -t refuses.
  it.each([
    ['ssl_key /etc/letsencrypt/live/example.com/privkey.pem;', 'ssl_key', 'server'],
    ['ssl_certficate conf.d/crts/harbor.example.com.crt;', 'ssl_certficate', 'server'],
    ['location /api { proxy_set_headers X-Real-IP $remote_addr; }', 'proxy_set_headers', 'location'],
    ['location / { proxy_set_heade   Host             $http_host; }', 'proxy_set_heade', 'location'],
    ['location / { proxy_passs http://localhost:8080; }', 'proxy_passs', 'location'],
  ])('found in the wild: %s', (body, name, context) => {
    const [finding] = unknown(whole(body));
    expect(finding).toMatch(new RegExp(`^error 6: unknown directive "${name}" in ${context}: meant `));
  });

  it('reads the events, upstream, stream and mail blocks as nginx does', () => {
    const text = `
events { worker_connection 1024; }
http {
  upstream app { server 127.0.0.1:9000; keepalive_timout 60s; }
}
stream {
  server { listen 9000; proxy_pas 127.0.0.1:9001; proxy_timout 10s; }
}
mail {
  server { listen 2525; protocol smtp; smtp_auth_methods none; }
}
`;
    expect(
      unknown(text).map((f) => f.replace(/: unknown directive "([^"]+)" in ([^:]+):.*/, ' $1 in $2')),
    ).toEqual([
      'error 2 worker_connection in events',
      'error 4 keepalive_timout in upstream',
      'error 7 proxy_pas in stream server',
      'error 7 proxy_timout in stream server',
      'note 10 smtp_auth_methods in mail server',
    ]);
  });

  it('is a note, with the name meant, where the directive meant is not taken either', () => {
    // proxy_set_header is not taken inside if: nginx would refuse the right name there too.
    expect(unknown(whole('location / { if ($x) { proxy_set_heade A b; } }'))).toEqual([
      'note 6: unknown directive "proxy_set_heade" in if in location: no module lint knows defines it, so nginx -t refuses it unless one that does is loaded; near: proxy_set_header (nginx takes it in http, server, location)',
    ]);
  });
});

describe('directive-unknown: names it does not know are notes', () => {
  it('says no module lint knows defines the name, and what a module name near it belongs to', () => {
    expect(unknown(whole('location / { beta_feature_flag on; more_set_header "X: y"; }'))).toEqual([
      'note 6: unknown directive "beta_feature_flag" in location: no module lint knows defines it, so nginx -t refuses it unless one that does is loaded',
      'note 6: unknown directive "more_set_header" in location: no module lint knows defines it, so nginx -t refuses it unless one that does is loaded; near: more_set_headers (headers-more)',
    ]);
  });

  it("says where a module's directive belongs when it stands elsewhere", () => {
    expect(unknown(whole('location / { js_preread main.x; live on; }'))).toEqual([
      'note 6: unknown directive "js_preread" in location: a directive of njs in stream blocks, not here',
      'note 6: unknown directive "live" in location: a directive of RTMP and http-flv (RTMP) in their own blocks, not here',
    ]);
  });

  it('never takes a name of a later nginx, NGINX Plus or a known module for a typo', () => {
    // subs_filter is one letter from sub_filter, geoip2_proxy from geoip_proxy, http3 from http.
    expect(
      unknown(
        whole(
          'subs_filter a b; geoip2_proxy 10.0.0.0/8; location / { proxy_connect; subs_filter_types text/css; }',
        ),
      ),
    ).toEqual([]);
    // At the top level, where http is taken, http3 is out of place, not a typo of it.
    expect(unknown('http3 on;\nevents {}\nhttp {}\n')).toEqual([
      'note 1: unknown directive "http3" in main: a directive of nginx 1.25.0 in http blocks, not here',
    ]);
  });
});

describe('directive-unknown is quiet on', () => {
  it.each([
    ['http2 on', 'listen 443 ssl; http2 on; ssl_certificate a.pem; ssl_certificate_key a.key;'],
    [
      'QUIC and HTTP/3',
      'listen 443 quic reuseport; http3 on; http3_hq off; quic_retry on; quic_gso on; ssl_certificate a.pem; ssl_certificate_key a.key;',
    ],
    [
      'OpenResty Lua',
      `lua_code_cache on; set_by_lua_block $x { return "}" }
       location / {
         access_by_lua_block { if ngx.var.x == "{" then ngx.exit(403) end }
         content_by_lua_block { ngx.say("hello") -- } {
         }
         header_filter_by_lua_file /srv/lua/h.lua;
         rewrite_by_lua 'ngx.var.a = 1';
       }`,
    ],
    ['headers-more', 'more_set_headers "Server: x"; more_clear_headers X-Powered-By;'],
    ['brotli', 'brotli on; brotli_comp_level 5; brotli_types text/css application/json; brotli_static on;'],
    ['geoip2 and its block of data', 'location / { return 200 $geoip2_country; }'],
    [
      'NGINX Plus',
      'location / { auth_jwt "api"; auth_jwt_key_file /etc/jwk.json; health_check interval=5; api write=on; status_zone s; }',
    ],
    [
      'other modules',
      'location / { echo hello; set_md5 $h $uri; fancyindex on; dav_ext_methods PROPFIND; modsecurity on; passenger_enabled on; SecRulesEnabled; DeniedUrl "/denied"; upload_progress_json_output; subs_filter a b; auth_pam "x"; auth_ldap "x"; vhost_traffic_status_display; nchan_publisher; pagespeed on; }',
    ],
  ])('%s', (_, body) => {
    const before = `geoip2 /etc/GeoLite2-Country.mmdb { auto_reload 5m; $geoip2_country country iso_code; }
lua_shared_dict cache 10m; init_by_lua_block { require "resty.core" }`;
    const text = `events {}
http {
  ${before}
  upstream app { server 127.0.0.1:9000; sticky cookie srv_id; least_time header; ntlm; zone app 64k; check interval=3000 rise=2 fall=5; }
  map $http_x $y { proxy_set_heade 1; ssl_key 2; default 0; }
  types { text/html html; application/x-keepalive-timout kt; }
  server {
    listen 127.0.0.1:8080;
    ${body}
  }
}
stream { zone_sync; server { listen 9000; js_preread main.x; proxy_pass 127.0.0.1:1; } }
rtmp { server { listen 1935; application live { live on; record off; } } }
`;
    expect(unknown(text)).toEqual([]);
  });
});

describe('directive-unknown on what nginx forks, NGINX Plus and templates write', () => {
  it('is quiet on Tengine, Angie, App Protect and Plus names, each where its build takes it', () => {
    const text = `events {}
http {
  upstream app { server 127.0.0.1:9000; session_sticky; }
  server {
    listen 127.0.0.1:8080;
    proxy_upstream_tries 2;
    app_protect_enable on;
    location / { proxy_connection_drop on; }
  }
}
stream { server { listen 9000; status_zone tcp; proxy_pass 127.0.0.1:1; } }
`;
    expect(unknown(text)).toEqual([]);
  });

  it('says a template placeholder left in the file is one', () => {
    expect(unknown(whole('@@RESOLVER@@;'))).toEqual([
      'note 6: unknown directive "@@RESOLVER@@" in server: a template placeholder, not a directive: lint the config it renders to',
    ]);
  });
});

describe('directive-unknown and load_module', () => {
  it('keeps a typo an error when every module loaded is one it knows', () => {
    const loads =
      'load_module modules/ngx_http_headers_more_filter_module.so;\nload_module modules/ngx_stream_module.so;';
    expect(unknown(whole('ssl_key a.key;', loads))).toEqual([
      'error 7: unknown directive "ssl_key" in server: meant ssl_certificate_key or ssl_session_ticket_key? nginx -t refuses it',
    ]);
  });

  it('makes a typo a warning, naming the module, when a module it has no list of is loaded', () => {
    const loads = 'load_module modules/ngx_http_acme_corp_module.so;';
    expect(unknown(whole('ssl_key a.key; beta_feature_flag on;', loads))).toEqual([
      'warning 6: unknown directive "ssl_key" in server: meant ssl_certificate_key or ssl_session_ticket_key? nginx -t refuses it unless modules/ngx_http_acme_corp_module.so (load_module at nginx.conf:1) defines it',
      'note 6: unknown directive "beta_feature_flag" in server: no module lint knows defines it, so nginx -t refuses it unless one that does is loaded; loaded here: modules/ngx_http_acme_corp_module.so (load_module at nginx.conf:1)',
    ]);
  });

  it('knows modules by the file Debian and the module builds name them', () => {
    expect(familyOfModuleFile('/usr/lib/nginx/modules/ngx_http_lua_module.so')).toBe(
      "OpenResty's lua-nginx-module",
    );
    expect(familyOfModuleFile('modules/ngx_http_brotli_static_module.so')).toBe('brotli');
    expect(familyOfModuleFile('modules/ngx_rtmp_module.so')).toBe('RTMP');
    expect(familyOfModuleFile('modules/ngx_stream_module.so')).toBe('nginx');
    expect(familyOfModuleFile(`modules/${NJS_MODULE.file}`)).toBe('njs');
    expect(familyOfModuleFile('modules/ngx_http_acme_corp_module.so')).toBeUndefined();
  });
});

describe('the lists of directives outside nginx 1.22', () => {
  it('hold no name nginx 1.22 knows, and each says where it came from', () => {
    for (const list of DIRECTIVES_ELSEWHERE) {
      expect(list.source.length, list.family).toBeGreaterThan(10);
      for (const names of Object.values(list.names))
        for (const name of names.split(/\s+/).filter(Boolean))
          expect(isNginxDirective(name), name).toBe(false);
    }
    expect(NGINX_OWN_MODULES).toContain('ngx_http_v2_module');
  });

  it('cover what the brief named: later nginx, NGINX Plus, and the common modules', () => {
    const http = [
      'http2',
      'http3',
      'quic_retry',
      'ssl_certificate_cache',
      'auth_jwt',
      'health_check',
      'ntlm',
      'least_time',
      'sticky',
      'ssl_key_log',
      'content_by_lua_block',
      'more_set_headers',
      'brotli',
      'geoip2',
      'vhost_traffic_status_zone',
      'modsecurity',
      'passenger_enabled',
      'echo',
      'set_md5',
      'nchan_publisher',
      'fancyindex',
      'dav_ext_methods',
      'proxy_cache_purge',
      'pagespeed',
      'auth_pam',
      'auth_ldap',
      'subs_filter',
      'check',
      'upload_progress',
      'js_set',
      'zstd',
    ];
    for (const name of http) expect(isDirectiveElsewhere(name, 'http'), name).toBe(true);
    for (const name of ['zone_sync', 'js_preread', 'preread_by_lua_block', 'pass'])
      expect(isDirectiveElsewhere(name, 'stream'), name).toBe(true);
    for (const name of ['rtmp', 'quic_bpf', 'mgmt'])
      expect(isDirectiveElsewhere(name, 'main'), name).toBe(true);
    expect(isDirectiveElsewhere('live', 'http')).toBe(false);
  });

  it('finds the names meant, best first, and nothing for a name far from all', () => {
    const location = directivesAllowedIn('location');
    expect(nearNames('proxy_set_heade', location)).toEqual(['proxy_set_header']);
    expect(nearNames('gzip_on', location)).toEqual(['gzip on']);
    expect(nearNames('more_set_headers', location)).toEqual([]);
    expect(nearNames('foo', location)).toEqual([]);
  });
});

// nginx -t itself: the errors above are what the real nginx 1.22 refuses, at the same line.
describe('directive-unknown against the real nginx -t', () => {
  let prefix: string;
  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'proxyops-unknown-directive-'));
    await chmod(prefix, 0o755);
    await mkdir(join(prefix, 'logs'));
  });
  afterAll(() => rm(prefix, { recursive: true, force: true }));

  /** nginx -t's answer for a config: its output, or the error carrying it. */
  async function nginxTest(name: string, text: string): Promise<{ confPath: string; output: string }> {
    const confPath = join(prefix, name);
    await writeFile(confPath, text);
    const output = await testNginxConfig({
      confPath,
      prefix,
      startupErrorLog: join(prefix, 'logs', 'error.log'),
    }).then(
      (out) => out,
      (error: Error) => error.message,
    );
    return { confPath, output };
  }

  const site = (line: string) => `pid logs/nginx.pid;
error_log logs/error.log;
events {}
http {
  server {
    listen 127.0.0.1:8080;
    ${line}
    location / { return 204; }
  }
}
`;

  it.each([
    ['ssl_key /etc/ssl/x.key;', 'ssl_key'],
    ['proxy_set_heade Host $host;', 'proxy_set_heade'],
    ['proxy_pass_headers X-Accel-Expires;', 'proxy_pass_headers'],
    ['client_max_body_sise 10m;', 'client_max_body_sise'],
  ])('nginx -t refuses "%s" as lint says, and accepts the name meant', async (line, name) => {
    const { confPath, output } = await nginxTest(`${name}.conf`, site(line));
    expect(output).toContain(`unknown directive "${name}" in ${confPath}:7`);
    const findings = (await lintNginxConfigFiles(confPath)).findings.filter(
      (f) => f.ruleId === 'directive-unknown',
    );
    expect(findings.map((f) => `${f.severity} ${f.line}`)).toEqual(['error 7']);
    const meant = /meant ([a-z_]+)/.exec(findings[0]?.what ?? '')?.[1] as string;
    const fixed = await nginxTest(`${name}-fixed.conf`, site(line.replace(name, meant)));
    expect(fixed.output).not.toMatch(/\[emerg\]/);
  });

  // set-misc's set_random is a rewrite-phase statement (NDK set_var): its module table takes it at http
  // level, but nginx runs such statements only from servers and locations (`set` itself is refused
  // at http level), and without set-misc nginx -t refuses the name anywhere.
  it('notes set_random at http level (nginx -t: unknown directive), and leaves it alone in a location', async () => {
    const text = (http: string, location: string) => `pid logs/nginx.pid;
error_log logs/error.log;
events {}
http {
  ${http}
  map $rand_uri $target { 1 /a; 2 /b; 3 /c; }
  server {
    listen 127.0.0.1:8080;
    location / { ${location} return 302 $target; }
  }
}
`;
    const atHttp = await nginxTest('set-random-http.conf', text('set_random $rand_uri 1 3;', ''));
    expect(atHttp.output).toContain(`unknown directive "set_random" in ${atHttp.confPath}:5`);
    const set = await nginxTest('set-http.conf', text('set $rand_uri 1;', ''));
    expect(set.output).toContain(`"set" directive is not allowed here in ${set.confPath}:5`);
    const found = (await lintNginxConfigFiles(atHttp.confPath)).findings.filter(
      (f) => f.ruleId === 'directive-unknown',
    );
    expect(found.map((f) => `${f.severity} ${f.line}`)).toEqual(['note 5']);
    expect(found[0]?.what).toContain('a rewrite-phase statement of set-misc');
    const inLocation = await nginxTest('set-random-location.conf', text('', 'set_random $rand_uri 1 3;'));
    const quiet = (await lintNginxConfigFiles(inLocation.confPath)).findings.filter(
      (f) => f.ruleId === 'directive-unknown',
    );
    expect(quiet).toEqual([]);
  });

  it('with njs loaded, nginx -t takes js_set (lint is quiet) and refuses a misspelt one (a note)', async () => {
    await writeFile(join(prefix, 'main.js'), 'function x(r) { return "1"; }\nexport default { x };\n');
    const text = (line: string) => `load_module ${DEFAULTS.paths.modulesDir}/${NJS_MODULE.file};
pid logs/nginx.pid;
error_log logs/error.log;
events {}
http {
  js_path ${prefix};
  js_import main.js;
  ${line}
  server {
    listen 127.0.0.1:8080;
    location / { return 204; }
  }
}
`;
    const good = await nginxTest('njs.conf', text('js_set $x main.x;'));
    expect(good.output).not.toMatch(/\[emerg\]/);
    expect(
      (await lintNginxConfigFiles(good.confPath)).findings.filter((f) => f.ruleId === 'directive-unknown'),
    ).toEqual([]);
    const bad = await nginxTest('njs-typo.conf', text('js_sett $x main.x;'));
    expect(bad.output).toContain('unknown directive "js_sett"');
    const findings = (await lintNginxConfigFiles(bad.confPath)).findings.filter(
      (f) => f.ruleId === 'directive-unknown',
    );
    expect(findings.map((f) => `${f.severity} ${f.line}: ${f.what}`)).toEqual([
      'note 8: unknown directive "js_sett" in http: no module lint knows defines it, so nginx -t refuses it unless one that does is loaded; near: js_set (njs)',
    ]);
  });
});
