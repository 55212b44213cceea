import { chmod, cp, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProxyopsError } from '../../../proxy-config/core/errors.js';
import { isNginxDirective } from '../../../proxy-config/core/nginx-config/check-directives.js';
import { NGINX_MODULE_DIRECTIVES } from '../../../proxy-config/core/nginx-config/nginx-directives.js';
import { parseNginxConfig } from '../../../proxy-config/core/nginx-config/parse-nginx-config.js';
import type { NginxDirective } from '../../../proxy-config/core/nginx-config/types.js';
import { testNginxConfig } from '../../../proxy-config/shell/nginx/nginx-process.js';
import { readNginxConfig } from '../../../proxy-config/shell/nginx/read-nginx-config.js';
import { makeCertificate } from '../helpers/make-certificate.js';

/**
 * The parser's context, block and argument-count checks against the real `nginx -t`, on Debian's
 * stock configs as installed in /etc/nginx (nginx.conf with everything it includes: the default
 * site, mime.types, modules-enabled) plus a wrapper that includes the stock snippets and parameter
 * files where they are meant to go, and on mutations of them: one argument dropped, one added, a
 * directive moved to each other context. nginx's verdict counts as an error of these kinds when
 * its first `[emerg]` is one of the messages the parser gives; nginx's other refusals (a bad
 * value, a duplicate) are outside the parser's checks. Every case where one reports such an error
 * and the other does not, or where they differ on message, file or line, fails the test.
 *
 * A second sweep does the same for every directive of the table that this binary has built in (the
 * dynamic modules' are unknown to it unless their package is installed): with no argument and with
 * eight where it is allowed, and once in a context it is not allowed in.
 */
const ETC_NGINX = '/etc/nginx';
const CHECKED =
  /^(invalid number of arguments in "[^"]+" directive|"[^"]+" directive is not allowed here|directive "[^"]+" has no opening "\{"|directive "[^"]+" is not terminated by ";"|invalid condition ".*"|no servers are inside upstream)$/;

interface Verdict {
  /** `file:line: message` of an error of the checked kinds, or null. */
  checked: string | null;
  /** nginx only: an error outside the parser's checks. */
  other?: string;
}

interface Case {
  name: string;
  mainFile: string;
  /** File path → new text for this case. */
  edits: Map<string, string>;
}

describe('the parser agrees with nginx -t on context and argument-count errors', () => {
  let prefix: string;
  let conf: string;
  const original = new Map<string, string>();

  beforeAll(async () => {
    prefix = await mkdtemp(join(tmpdir(), 'proxyops-nginx-t-agreement-'));
    // Workers run as `nobody` when the master is root: they must be able to traverse the prefix.
    await chmod(prefix, 0o755);
    conf = join(prefix, 'conf');
    await mkdir(join(prefix, 'logs'));
    await mkdir(join(prefix, 'ssl'));
    // Debian's load_module lines name modules/… relative to its prefix, /usr/share/nginx.
    await symlink('/usr/share/nginx/modules', join(prefix, 'modules'));
    const snakeoil = await makeCertificate(join(prefix, 'ssl'), 'ssl-cert-snakeoil', 2);
    await cp(ETC_NGINX, conf, { recursive: true, dereference: true });
    const rewrite = (text: string) =>
      text
        .replaceAll(`${ETC_NGINX}/`, `${conf}/`)
        .replaceAll('/var/log/nginx/', `${prefix}/logs/`)
        .replaceAll('/run/nginx.pid', `${prefix}/nginx.pid`)
        .replaceAll('/etc/ssl/certs/ssl-cert-snakeoil.pem', snakeoil.certificate)
        .replaceAll('/etc/ssl/private/ssl-cert-snakeoil.key', snakeoil.certificateKey);
    for (const file of await filesUnder(conf)) {
      const text = rewrite(await readFile(file, 'utf8'));
      await writeFile(file, text);
      original.set(file, text);
    }
    const wrapper = join(conf, 'stock-snippets.conf');
    const text = [
      `pid ${prefix}/stock-snippets.pid;`,
      `error_log ${prefix}/logs/error.log;`,
      `include ${conf}/modules-enabled/*.conf;`,
      'events {',
      '    worker_connections 64;',
      '}',
      'http {',
      '    include mime.types;',
      '    upstream backend {',
      '        server 127.0.0.1:9;',
      '        keepalive 4;',
      '    }',
      '    server {',
      '        listen 127.0.0.1:8443 ssl;',
      '        include snippets/snakeoil.conf;',
      '        location ~ \\.php$ {',
      '            include snippets/fastcgi-php.conf;',
      '            fastcgi_pass unix:/run/php/php-fpm.sock;',
      '        }',
      '        location /proxy/ {',
      '            include proxy_params;',
      '            proxy_pass http://backend;',
      '            limit_except GET {',
      '                deny all;',
      '            }',
      '        }',
      '        location /fastcgi/ {',
      '            include fastcgi_params;',
      '            fastcgi_pass 127.0.0.1:9;',
      '        }',
      '        location /scgi/ {',
      '            include scgi_params;',
      '            scgi_pass 127.0.0.1:9;',
      '        }',
      '        location /uwsgi/ {',
      '            include uwsgi_params;',
      '            uwsgi_pass 127.0.0.1:9;',
      '        }',
      '        location /if/ {',
      '            if ($request_method = POST) {',
      '                return 405;',
      '            }',
      '            return 204;',
      '        }',
      '    }',
      '}',
      '',
    ].join('\n');
    await writeFile(wrapper, text);
    original.set(wrapper, text);
  });
  afterAll(() => rm(prefix, { recursive: true, force: true }));

  async function nginxVerdict(mainFile: string): Promise<Verdict> {
    try {
      await testNginxConfig({
        confPath: mainFile,
        prefix,
        startupErrorLog: join(prefix, 'logs', 'error.log'),
      });
      return { checked: null };
    } catch (error) {
      const output = String((error as { details?: { output?: string } }).details?.output ?? error);
      const emerg = /\[emerg\] (.*?)(?: in (\S+):(\d+))?$/m.exec(output);
      if (!emerg) return { checked: null, other: output };
      const [, message = '', file, line] = emerg;
      if (CHECKED.test(message) && file) return { checked: `${file}:${line}: ${message}` };
      return { checked: null, other: emerg[0] };
    }
  }

  async function parserVerdict(mainFile: string): Promise<Verdict> {
    try {
      await readNginxConfig(mainFile);
      return { checked: null };
    } catch (error) {
      if (isProxyopsError(error) && error.code === 'NGINX_CONFIG_INVALID') return { checked: error.message };
      throw error;
    }
  }

  /** The simple statements and block heads of a file that each fit on one line, first of each name. */
  function oneLineStatements(file: string, text: string): { directive: NginxDirective; block: boolean }[] {
    const lines = text.split('\n');
    const seen = new Set<string>();
    const found: { directive: NginxDirective; block: boolean }[] = [];
    const visit = (nodes: NginxDirective[]) => {
      for (const d of nodes) {
        if (d.children) visit(d.children);
        if (!isNginxDirective(d.name) || d.statementEndLine !== undefined || d.entries || d.raw) continue;
        const block = d.children !== undefined;
        const written = (lines[d.line - 1] ?? '').trim();
        const shape = block ? /^[a-z_]+\b[^;{}#"']*\{\s*(#.*)?$/ : /^[a-z_]+\b[^;{}#"']*;\s*(#.*)?$/;
        if (!written.startsWith(d.name) || !shape.test(written)) continue;
        const key = `${block}:${d.name}`;
        if (seen.has(key)) continue;
        seen.add(key);
        found.push({ directive: d, block });
      }
    };
    visit(parseNginxConfig(text, file));
    return found;
  }

  /** The line of `text` holding `directive`, rewritten with its arguments replaced. */
  function rewriteStatement(text: string, directive: NginxDirective, args: string[], block: boolean): string {
    const lines = text.split('\n');
    const indent = /^\s*/.exec(lines[directive.line - 1] ?? '')?.[0] ?? '';
    lines[directive.line - 1] = `${indent}${[directive.name, ...args].join(' ')}${block ? ' {' : ';'}`;
    return lines.join('\n');
  }

  /** Where a moved directive may land in a main file: after the opening line of these blocks, or at the top. */
  function anchors(mainText: string, mainFile: string): { label: string; line: number }[] {
    const found: { label: string; line: number }[] = [{ label: 'main', line: 0 }];
    const want = new Set(['events', 'http', 'server', 'location', 'if', 'upstream', 'limit_except']);
    const visit = (nodes: NginxDirective[]) => {
      for (const d of nodes) {
        if (d.children && want.has(d.name) && d.statementEndLine === undefined) {
          want.delete(d.name);
          found.push({ label: d.name, line: d.line });
        }
        if (d.children) visit(d.children);
      }
    };
    visit(parseNginxConfig(mainText, mainFile));
    return found;
  }

  async function buildCases(): Promise<Case[]> {
    const cases: Case[] = [];
    for (const main of ['nginx.conf', 'stock-snippets.conf'].map((f) => join(conf, f))) {
      cases.push({ name: `${main} as installed`, mainFile: main, edits: new Map() });
      const files = (await readNginxConfig(main)).files;
      const mainText = original.get(main) as string;
      for (const file of files) {
        const text = original.get(file) as string;
        for (const { directive, block } of oneLineStatements(file, text)) {
          const where = `${file.slice(conf.length + 1)}:${directive.line} ${directive.name}`;
          const edit = (args: string[]) => new Map([[file, rewriteStatement(text, directive, args, block)]]);
          if (directive.args.length > 0)
            cases.push({
              name: `${where}: last argument dropped`,
              mainFile: main,
              edits: edit(directive.args.slice(0, -1)),
            });
          cases.push({
            name: `${where}: one argument added`,
            mainFile: main,
            edits: edit([...directive.args, directive.args.at(-1) ?? 'on']),
          });
          if (block) continue;
          const statement = (lines: string[]) => (lines[directive.line - 1] as string).trim();
          for (const anchor of anchors(mainText, main)) {
            // Moved: blanked where it was (line numbers kept), written after the anchor's opening line.
            const sourceLines = text.split('\n');
            const moved = statement(sourceLines);
            sourceLines[directive.line - 1] = '';
            const edits = new Map([[file, sourceLines.join('\n')]]);
            const targetLines = (file === main ? (edits.get(file) as string) : mainText).split('\n');
            targetLines.splice(anchor.line, 0, moved);
            edits.set(main, targetLines.join('\n'));
            cases.push({ name: `${where}: moved into ${anchor.label}`, mainFile: main, edits });
          }
        }
      }
    }
    return cases;
  }

  it('on Debian stock configs and their mutations', async () => {
    const cases = await buildCases();
    const disagreements: string[] = [];
    let bothRefused = 0;
    let bothAccepted = 0;
    const otherNginxErrors: string[] = [];
    const asInstalled: Verdict[] = [];
    for (const c of cases) {
      for (const [file, text] of c.edits) await writeFile(file, text);
      const [nginx, parser] = [await nginxVerdict(c.mainFile), await parserVerdict(c.mainFile)];
      for (const file of c.edits.keys()) await writeFile(file, original.get(file) as string);
      if (c.edits.size === 0) asInstalled.push(nginx, parser);
      if (nginx.checked !== parser.checked)
        disagreements.push(
          `${c.name}\n    nginx -t: ${nginx.checked ?? nginx.other ?? 'ok'}\n    parser:   ${parser.checked ?? 'ok'}`,
        );
      else if (nginx.checked) bothRefused++;
      else if (nginx.other) otherNginxErrors.push(`${c.name}: ${nginx.other}`);
      else bothAccepted++;
    }
    expect(disagreements).toEqual([]);
    // The stock configs themselves pass both, and the corpus really exercises both verdicts.
    expect(asInstalled).toEqual(Array(4).fill({ checked: null }));
    expect(bothRefused).toBeGreaterThan(100);
    expect(bothAccepted).toBeGreaterThan(50);
    expect(otherNginxErrors.length).toBeLessThan(bothRefused);
  }, 300_000);

  it("on every directive built into Debian's nginx binary: no argument, too many, and in a context it does not allow", async () => {
    const cases = sweepCases();
    const disagreements: string[] = [];
    let bothRefused = 0;
    // Two at a time, each in its own file: over a thousand nginx -t runs.
    let next = 0;
    const worker = async (slot: number) => {
      const file = join(conf, `sweep-${slot}.conf`);
      for (let c = cases[next++]; c; c = cases[next++]) {
        await writeFile(file, c.text);
        const [nginx, parser] = [await nginxVerdict(file), await parserVerdict(file)];
        if (nginx.checked !== parser.checked)
          disagreements.push(
            `${c.name}\n    nginx -t: ${nginx.checked ?? nginx.other ?? 'ok'}\n    parser:   ${parser.checked ?? 'ok'}`,
          );
        else if (nginx.checked) bothRefused++;
      }
    };
    await Promise.all([worker(0), worker(1)]);
    expect(disagreements).toEqual([]);
    expect(bothRefused).toBeGreaterThan(cases.length / 2);
  }, 600_000);
});

async function filesUnder(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const name of await readdir(dir)) {
    const path = join(dir, name);
    if ((await stat(path)).isDirectory()) out.push(...(await filesUnder(path)));
    else out.push(path);
  }
  return out;
}

/** Modules Debian builds as separate packages (not loaded here, so nginx -t does not know their directives). */
const DYNAMIC = /^src\/(mail|stream)\/|geoip|image_filter|xslt|perl/;

/** A skeleton with one slot per context: `{{main}}`, `{{events}}`, ... */
const SKELETON = [
  '{{MAIN}}',
  'events {',
  '    {{EVENT}}',
  '}',
  'http {',
  '    {{HTTP_MAIN}}',
  '    upstream u {',
  '        server 127.0.0.1:9;',
  '        {{HTTP_UPS}}',
  '    }',
  '    server {',
  '        listen 127.0.0.1:8080;',
  '        {{HTTP_SRV}}',
  '        if ($arg_a) {',
  '            {{HTTP_SIF}}',
  '        }',
  '        location / {',
  '            {{HTTP_LOC}}',
  '            if ($arg_b) {',
  '                {{HTTP_LIF}}',
  '            }',
  '            limit_except GET {',
  '                {{HTTP_LMT}}',
  '            }',
  '        }',
  '    }',
  '}',
  '',
].join('\n');
const SLOTS = [
  'MAIN',
  'EVENT',
  'HTTP_MAIN',
  'HTTP_UPS',
  'HTTP_SRV',
  'HTTP_SIF',
  'HTTP_LOC',
  'HTTP_LIF',
  'HTTP_LMT',
];

/** Each directive of the built-in modules with no argument and with eight where it is allowed, and once where it is not. */
function sweepCases(): { name: string; text: string }[] {
  const cases: { name: string; text: string }[] = [];
  const place = (slot: string, statement: string) =>
    SLOTS.reduce((text, s) => text.replace(`{{${s}}}`, s === slot ? statement : ''), SKELETON);
  for (const { source, directives } of NGINX_MODULE_DIRECTIVES) {
    if (DYNAMIC.test(source)) continue;
    for (const [name, type] of Object.entries(directives)) {
      const flags = type.split('|');
      const allowed = SLOTS.filter((slot) => flags.includes(slot) || flags.includes('ANYWHERE'));
      const statement = (args: string[]) =>
        `${[name, ...args].join(' ')}${flags.includes('BLOCK') ? ' { }' : ';'}`;
      const home = allowed[0] ?? 'MAIN';
      cases.push({ name: `${name} with no argument in ${home}`, text: place(home, statement([])) });
      if (!flags.includes('1MORE') && !flags.includes('2MORE'))
        cases.push({
          name: `${name} with eight arguments in ${home}`,
          text: place(home, statement(Array(8).fill('x'))),
        });
      const elsewhere = SLOTS.find((slot) => !allowed.includes(slot));
      if (elsewhere)
        cases.push({ name: `${name} in ${elsewhere}`, text: place(elsewhere, statement(['x'])) });
    }
  }
  return cases;
}
