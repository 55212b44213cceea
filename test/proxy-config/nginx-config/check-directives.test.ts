import { describe, expect, it } from 'vitest';
import {
  checkDirectives,
  isNginxDirective,
  topLevelContext,
  type NginxContext,
} from '../../../proxy-config/core/nginx-config/check-directives.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';

const parse = (text: string) => parseNginxConfig(text, 'n.conf');
const check = (text: string, context: NginxContext = 'main') => checkDirectives(parse(text), context);

describe('checkDirectives (nginx -t checks before a directive runs)', () => {
  it("refuses `user;` with no argument, with nginx's message at file:line", () => {
    expect(check('worker_processes 1;\nuser;\n')).toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: 'n.conf:2: invalid number of arguments in "user" directive',
      details: { file: 'n.conf', line: 2, check: 'argument-count' },
    });
    expect(check('user www-data;\nuser www-data adm;\n')).toBeUndefined();
    expect(check('user a b c;')?.message).toBe('n.conf:1: invalid number of arguments in "user" directive');
  });

  it('refuses a run-on statement nginx refuses where it stands with the lost ";", not nginx\'s message', () => {
    const text = 'server_name a.example\n  expires off;';
    expect(check(text, 'server')).toBeUndefined();
    expect(check(text, 'location')).toMatchObject({
      message:
        'n.conf:1: missing ";" after "server_name a.example" ("expires" on line 2 starts a new directive)',
      details: { file: 'n.conf', line: 1, check: 'syntax' },
    });
  });

  it('reads FLAG, 1MORE, 2MORE, TAKE12 and NOARGS the way ngx_conf_handler does', () => {
    const http = (body: string) => check(`http {\n${body}\n}`);
    expect(http('sendfile on;')).toBeUndefined();
    expect(http('sendfile on off;')?.message).toBe(
      'n.conf:2: invalid number of arguments in "sendfile" directive',
    );
    expect(http('sendfile;')?.details).toMatchObject({ check: 'argument-count' });
    expect(http('gzip_types text/css text/xml application/json;')).toBeUndefined();
    expect(http('gzip_types;')?.details).toMatchObject({ check: 'argument-count' });
    expect(http('server { location / { rewrite ^ /x; } }')).toBeUndefined();
    expect(http('server { location / { rewrite ^; } }')?.details).toMatchObject({ check: 'argument-count' });
    expect(http('server { location / { rewrite ^ /x last extra; } }')?.message).toBe(
      'n.conf:2: invalid number of arguments in "rewrite" directive',
    );
    expect(http('keepalive_timeout 65 60;')).toBeUndefined();
    expect(http('keepalive_timeout 65 60 1;')?.details).toMatchObject({ check: 'argument-count' });
  });

  it('refuses a directive outside its contexts, telling http, events, upstream and if bodies apart', () => {
    expect(check('sendfile on;')).toMatchObject({
      message: 'n.conf:1: "sendfile" directive is not allowed here',
      details: { check: 'context' },
    });
    expect(check('events { worker_connections 10; }\nhttp { worker_connections 10; }')?.message).toBe(
      'n.conf:2: "worker_connections" directive is not allowed here',
    );
    expect(check('http { upstream u { server 127.0.0.1 weight=2; keepalive 8; } }')).toBeUndefined();
    expect(check('http { server { keepalive 8; } }')?.message).toBe(
      'n.conf:1: "keepalive" directive is not allowed here',
    );
    expect(
      check('http { server { if ($a) { return 403; } location / { if ($b) { proxy_pass http://u; } } } }'),
    ).toBeUndefined();
    // proxy_pass is allowed in an `if` of a location, not in an `if` of a server.
    expect(check('http { server { if ($a) { proxy_pass http://u; } } }')?.message).toBe(
      'n.conf:1: "proxy_pass" directive is not allowed here',
    );
    expect(check('http { server { location / { limit_except GET { deny all; } } } }')).toBeUndefined();
    expect(
      check('stream { upstream u { server 127.0.0.1:1; } server { listen 1; proxy_pass u; } }'),
    ).toBeUndefined();
    expect(check('stream { server { listen 1; proxy_set_header A b; } }')?.details).toMatchObject({
      check: 'context',
    });
  });

  it('refuses a block directive without its block and a plain directive given one', () => {
    expect(check('http;')).toMatchObject({
      message: 'n.conf:1: directive "http" has no opening "{"',
      details: { check: 'block' },
    });
    expect(check('http { sendfile on { } }')).toMatchObject({
      message: 'n.conf:1: directive "sendfile" is not terminated by ";"',
      details: { check: 'terminator' },
    });
  });

  it('leaves unknown directives (third-party modules) and data blocks alone', () => {
    expect(isNginxDirective('content_by_lua_block')).toBe(false);
    expect(
      check(
        'http { lua_shared_dict d 1m; map $a $b { default 0; x 1 2 3; } server { location / { content_by_lua_block { ngx.say(1) } } } }',
      ),
    ).toBeUndefined();
  });

  it('reports at the line the statement ends, where nginx does', () => {
    expect(check('http {\n  log_format;\n  server_tokens\n    on\n    off;\n}')?.message).toBe(
      'n.conf:2: invalid number of arguments in "log_format" directive',
    );
    expect(check('http {\n  server_tokens\n    on\n    off;\n}')?.message).toBe(
      'n.conf:4: invalid number of arguments in "server_tokens" directive',
    );
  });

  it('refuses an if condition without parentheses after its context and argument count, as nginx does', () => {
    expect(check('http { server {\n  if $slow { return 403; }\n} }')).toMatchObject({
      message: 'n.conf:2: invalid condition "$slow"',
      details: { check: 'if-condition' },
    });
    expect(check('http { server { location / { if ($slow { } } } }')?.message).toBe(
      'n.conf:1: invalid condition "$slow"',
    );
    expect(check('if x { }')?.message).toBe('n.conf:1: "if" directive is not allowed here');
  });

  it('refuses an upstream with no server, at its closing brace, as the upstream module does', () => {
    expect(check('http {\n  upstream u {\n    keepalive 8;\n  }\n}')).toMatchObject({
      message: 'n.conf:4: no servers are inside upstream',
      details: { check: 'upstream-empty' },
    });
    expect(check('stream {\n  upstream u {\n  }\n}')?.message).toBe(
      'n.conf:3: no servers are inside upstream',
    );
  });

  it('reads a snippet where its directives belong: a site file at http level, a location snippet in a location', () => {
    expect(topLevelContext(parse('user x;\nevents {}\nhttp {}\n'))).toBe('main');
    // One main-only directive makes it nginx.conf, however many http-level lines an include brought.
    expect(topLevelContext(parse('pid x.pid;\nfastcgi_param A a;\nfastcgi_param B b;\nsendfile on;\n'))).toBe(
      'main',
    );
    expect(topLevelContext(parse('server { listen 80; }\n'))).toBe('http');
    expect(topLevelContext(parse('listen 80;\nserver_name a;\nlocation / {}\n'))).toBe('server');
    expect(topLevelContext(parse('alias /srv/files/;\ntry_files $uri =404;\n'))).toBe('location');
  });
});
