import { describe, expect, it } from 'vitest';
import {
  MAX_BLOCK_DEPTH,
  parseNginxConfig,
} from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import type { NginxDirective } from '../../../proxy-config/core/nginx-config/types.js';

const parse = (text: string) => parseNginxConfig(text, 'test.conf');

function errorOf(text: string): { message: string; code: string } {
  try {
    parse(text);
  } catch (error) {
    return error as { message: string; code: string };
  }
  throw new Error('expected a parse error');
}

describe('parseNginxConfig', () => {
  it('reads directives, blocks, arguments and lines', () => {
    const [http] = parse('worker_processes 1;\nhttp {\n  server {\n    listen 80;\n  }\n}\n').slice(1);
    expect(http).toMatchObject({ name: 'http', line: 2, endLine: 6 });
    const server = http?.children?.[0] as NginxDirective;
    expect(server.children?.[0]).toEqual({ name: 'listen', args: ['80'], file: 'test.conf', line: 4 });
  });

  it('resolves quotes and escapes like nginx, keeps variables as text', () => {
    const nodes = parse(
      `add_header X "a \\"quoted\\" value";\n` +
        `add_header Y 'it\\'s';\n` +
        `proxy_set_header Connection "";\n` +
        `return 200 "\${scheme}://$host\\n";\n` +
        `rewrite ^/a\\;b /c;\n`,
    );
    expect(nodes.map((n) => n.args)).toEqual([
      ['X', 'a "quoted" value'],
      ['Y', "it's"],
      ['Connection', ''],
      ['200', '${scheme}://$host\n'],
      ['^/a\\;b', '/c'],
    ]);
  });

  it('keeps ${var} inside a bare word instead of opening a block', () => {
    const [node] = parse('set $x ${host}_suffix;');
    expect(node?.args).toEqual(['$x', '${host}_suffix']);
  });

  it('skips comments, but a # inside a word is part of it', () => {
    const nodes = parse('# top\nlisten 80; # trailing\nproxy_pass http://u/#frag;\n');
    expect(nodes.map((n) => [n.name, n.args, n.line])).toEqual([
      ['listen', ['80'], 2],
      ['proxy_pass', ['http://u/#frag'], 3],
    ]);
  });

  it('turns `# proxyops:` comments into annotation directives', () => {
    const [note] = parse('server {\n  # proxyops: outer-timeout 60s\n}').at(0)?.children ?? [];
    expect(note).toMatchObject({ name: 'proxyops:outer-timeout', args: ['60s'], line: 2 });
  });

  it('keeps map and types bodies as entries, not directives', () => {
    const [map, types] = parse(
      "map $http_upgrade $connection_upgrade {\n  default upgrade;\n  '' '';\n}\ntypes { text/html html htm; }",
    );
    expect(map?.children).toBeUndefined();
    expect(map?.entries?.map((e) => [e.name, e.args])).toEqual([
      ['default', ['upgrade']],
      ['', ['']],
    ]);
    expect(types?.entries?.[0]).toMatchObject({ name: 'text/html', args: ['html', 'htm'] });
  });

  it('keeps *_by_lua_block bodies raw, braces in Lua strings and comments included', () => {
    const text =
      'location / {\n  content_by_lua_block {\n    local t = { a = "}" } -- }\n    ngx.say([[ } ]])\n  }\n  return 204;\n}';
    const location = parse(text)[0] as NginxDirective;
    const [lua, ret] = location.children ?? [];
    expect(lua).toMatchObject({ name: 'content_by_lua_block', line: 2, endLine: 5 });
    expect(lua?.raw).toContain('ngx.say([[ } ]])');
    expect(ret).toMatchObject({ name: 'return', args: ['204'], line: 6 });
  });

  it('reports a missing semicolon before } with file:line', () => {
    const error = errorOf('http {\n  server {\n    listen 80\n  }\n}');
    expect(error.code).toBe('NGINX_CONFIG_INVALID');
    expect(error.message).toMatch(/^test\.conf:3: missing ";" after "listen 80"/);
  });

  it('reports a missing semicolon followed by another directive at the line that lost it', () => {
    const error = errorOf('server {\n  proxy_pass http://u\n  proxy_set_header Host $host;\n}');
    expect(error.message).toMatch(/^test\.conf:2: missing ";" after "proxy_pass http:\/\/u"/);
    expect(error.message).toContain('line 3');
  });

  it('reads on to the ";" where nginx takes the next line as more arguments, marking where it ran on', () => {
    const [serverName, root] = parse('server_name a.example\n  expires off;\nroot /srv;');
    expect(serverName).toMatchObject({
      name: 'server_name',
      args: ['a.example', 'expires', 'off'],
      line: 1,
      statementEndLine: 2,
      runsOnAt: { line: 2, word: 'expires', arg: 1 },
    });
    expect(root).not.toHaveProperty('runsOnAt');
  });

  it("keeps refusing a run-on statement nginx refuses wherever it stands (a handler's own check)", () => {
    const error = errorOf('error_page 404 /404.html\nexpires off;');
    expect(error.message).toBe(
      'test.conf:1: missing ";" after "error_page 404 /404.html" ("expires" on line 2 starts a new directive)',
    );
  });

  it('reports an unclosed block at end of file with the line it was opened on', () => {
    const error = errorOf('http {\n  server {\n    listen 80;\n}\n');
    expect(error.message).toMatch(
      /^test\.conf:5: unexpected end of file, expecting "}" to close "http" opened on line 1/,
    );
  });

  it('reports a stray } with its line', () => {
    expect(errorOf('listen 80;\n}\n').message).toMatch(/^test\.conf:2: unexpected "}"/);
  });

  it('reports an unterminated string at the line it starts', () => {
    expect(errorOf('listen 80;\nadd_header X "abc;\n}\n').message).toMatch(/^test\.conf:2: .*unterminated/);
  });

  it('reports text glued to a closing quote', () => {
    expect(errorOf('add_header X "a"b;').message).toMatch(/^test\.conf:1: unexpected "b"/);
  });

  it('reports a directive cut off by the end of file', () => {
    expect(errorOf('listen 80;\nlisten 81').message).toMatch(/^test\.conf:2: missing ";" after "listen 81"/);
  });
});

describe('parseNginxConfig, nginx corner cases', () => {
  it('reads if conditions whose quoted operand touches the closing parenthesis', () => {
    const [server] = parse('server {\n  if ($request_method = "POST") { return 405; }\n}');
    const condition = server?.children?.[0];
    expect(condition).toMatchObject({ name: 'if', args: ['$request_method', '=', 'POST'], line: 2 });
    expect(condition?.children?.[0]).toMatchObject({ name: 'return', args: ['405'] });
  });

  it('stores if conditions without their parentheses, however they are spaced', () => {
    const conditions = parse(
      'if ($slow) { }\nif ( $a = b ) { }\nif ($uri ~ (a)) { }\nif ($uri ~ "^/(x)$" ) { }\nif (-f $file) { }\n',
    ).map((d) => d.args);
    expect(conditions).toEqual([
      ['$slow'],
      ['$a', '=', 'b'],
      ['$uri', '~', '(a)'],
      ['$uri', '~', '^/(x)$'],
      ['-f', '$file'],
    ]);
  });

  it('keeps an if condition without parentheses as written, marked for the checks to refuse', () => {
    const [bare, open] = parse('if $slow { }\nif ($slow { }\n');
    expect(bare).toMatchObject({ args: ['$slow'], invalidCondition: '$slow' });
    expect(open).toMatchObject({ args: ['($slow'], invalidCondition: '$slow' });
    expect(parse('if ($a) { }')[0]?.invalidCondition).toBeUndefined();
  });

  it('refuses a UTF-8 byte-order mark at the start of a file, and says so', () => {
    expect(errorOf('\uFEFFuser www-data;\n')).toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: expect.stringMatching(
        /^test\.conf:1: the file starts with a UTF-8 byte-order mark, which nginx refuses/,
      ),
      details: { check: 'bom' },
    });
    // Elsewhere it is just a character of a word, as for nginx.
    expect(parse('add_header X "\uFEFF";')[0]?.args).toEqual(['X', '\uFEFF']);
  });

  it('remembers the line a statement spanning lines ends on (where nginx reports it)', () => {
    const [format, next] = parse("log_format main '$a'\n  '$b';\naccess_log off;");
    expect(format?.statementEndLine).toBe(2);
    expect(next?.statementEndLine).toBeUndefined();
  });

  it('counts lines the same with CRLF line ends', () => {
    const nodes = parse('listen 80;\r\n\r\nserver_name a;\r\n');
    expect(nodes.map((n) => [n.name, n.line])).toEqual([
      ['listen', 1],
      ['server_name', 3],
    ]);
  });

  it('reads a quoted argument spanning lines at the line it starts', () => {
    const [format, next] = parse("log_format main '$a'\n                '$b';\naccess_log off;");
    expect(format).toMatchObject({ args: ['main', '$a', '$b'], line: 1 });
    expect(next?.line).toBe(3);
  });

  it('refuses a block opened without a name', () => {
    expect(errorOf('http {\n  {\n}').message).toMatch(/^test\.conf:2: unexpected "{"/);
  });

  it('refuses blocks nested deeper than MAX_BLOCK_DEPTH at the line of the first one too deep', () => {
    const nested = (depth: number) => 'location / {\n'.repeat(depth) + '}\n'.repeat(depth);
    expect(() => parse(nested(MAX_BLOCK_DEPTH))).not.toThrow();
    expect(errorOf(nested(MAX_BLOCK_DEPTH + 1))).toMatchObject({
      code: 'NGINX_CONFIG_INVALID',
      message: `test.conf:${MAX_BLOCK_DEPTH + 1}: "location" block nested more than ${MAX_BLOCK_DEPTH} levels deep`,
    });
    // Thousands deep used to overflow the call stack (RangeError) instead of saying where.
    expect(errorOf(nested(3000)).code).toBe('NGINX_CONFIG_INVALID');
  });
});
