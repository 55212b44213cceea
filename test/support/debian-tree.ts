import { createHash } from 'node:crypto';
import {
  chmod,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  readFile,
  readlink,
  rm,
  symlink,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import { readChildPids, readLiveMasterPid } from '../../proxy-config/shell/nginx/nginx-master.js';

/** One `server` line of the hand-written `upstream app`. */
export interface TreeServer {
  host: string;
  port: number;
}

/** A hand-written Debian-style nginx tree in a temp dir (see buildDebianTree). */
export interface DebianTree {
  /** The temp dir holding everything (tree, logs, pid, temp files). */
  root: string;
  /** The tree itself, as /etc/nginx would be. */
  dir: string;
  /** The main file the master runs (`-c`). */
  conf: string;
  /** The prefix to start nginx with (`-p`). */
  prefix: string;
  pidFile: string;
  accessLog: string;
  errorLog: string;
  /** The file holding `upstream app { … }`, as nginx names it (sites-available/app, reached through a symlink). */
  upstreamFile: string;
  /** The symlink in sites-enabled pointing at it. */
  siteLink: string;
  /** The unrelated second upstream's file. */
  otherUpstreamFile: string;
  /** The log_format's name in nginx.conf and the site's access_log. */
  logFormat: string;
  /** Starts the tree's own master (as the test runs: root); resolves with its pid once it wrote it. */
  start(): Promise<number>;
  /** The master's pid and its workers' pids, sorted (for "nothing reloaded"). */
  pids(): Promise<{ master: number; workers: number[] }>;
  /** Stops the master (if running) and removes the temp dir. */
  remove(): Promise<void>;
}

/** Options: the servers of `upstream app`, the port the site listens on, and whether to include modules-enabled. */
export interface DebianTreeOptions {
  servers: readonly TreeServer[];
  listenPort: number;
  /** `include …/modules-enabled/*.conf;` at the top, as Debian writes it (the dir is left empty). Default true. */
  modulesLine?: boolean;
  /** Worker processes (default 2). */
  workers?: number;
}

/**
 * Writes a tree like one kept by hand for years: Debian's nginx.conf layout, conf.d and sites-enabled
 * includes, a symlinked site holding `upstream app` with comments, tabs, odd spacing and
 * max_fails/fail_timeout/keepalive, a second unrelated upstream, a proxy-headers snippet and a
 * log_format copied from a blog post. The master, run as root, runs its workers as `nobody`.
 */
export async function buildDebianTree(options: DebianTreeOptions): Promise<DebianTree> {
  const root = await mkdtemp(join(tmpdir(), 'proxyops-debian-'));
  // Workers run as nobody: they must traverse the dirs of the temp files and logs.
  await chmod(root, 0o755);
  const dir = join(root, 'etc', 'nginx');
  const logs = join(root, 'log', 'nginx');
  const lib = join(root, 'lib', 'nginx');
  for (const sub of ['conf.d', 'sites-available', 'sites-enabled', 'snippets', 'modules-enabled'])
    await mkdir(join(dir, sub), { recursive: true, mode: 0o755 });
  for (const d of [logs, lib, join(root, 'run')]) await mkdir(d, { recursive: true, mode: 0o755 });
  await chmod(join(root, 'etc'), 0o755);
  await chmod(join(root, 'log'), 0o755);
  await chmod(join(root, 'lib'), 0o755);

  const pidFile = join(root, 'run', 'nginx.pid');
  const accessLog = join(logs, 'app.access.log');
  const errorLog = join(logs, 'error.log');
  const logFormat = 'upstreamlog';
  const files: Record<string, string> = {
    'nginx.conf': nginxConf({ dir, logs, lib, pidFile, errorLog, logFormat, options }),
    'mime.types': MIME_TYPES,
    'conf.d/legacy-upstream.conf': LEGACY_UPSTREAM,
    'conf.d/gzip.conf': GZIP,
    'snippets/proxy-headers.conf': PROXY_HEADERS,
    'sites-available/app': site({ dir, accessLog, logFormat, options }),
    'sites-available/default': DEFAULT_SITE,
  };
  for (const [path, text] of Object.entries(files)) await writeFile(join(dir, path), text, { mode: 0o644 });
  const siteLink = join(dir, 'sites-enabled', 'app');
  await symlink(join(dir, 'sites-available', 'app'), siteLink);
  return {
    root,
    dir,
    conf: join(dir, 'nginx.conf'),
    prefix: `${root}/`,
    pidFile,
    accessLog,
    errorLog,
    upstreamFile: join(dir, 'sites-available', 'app'),
    siteLink,
    otherUpstreamFile: join(dir, 'conf.d', 'legacy-upstream.conf'),
    logFormat,
    async start() {
      await execa('nginx', ['-p', `${root}/`, '-c', join(dir, 'nginx.conf'), '-e', errorLog]);
      for (let i = 0; i < 500; i++) {
        const pid = await readLiveMasterPid(pidFile);
        if (pid !== undefined) return pid;
        await sleep(20);
      }
      throw new Error(`nginx of ${dir} did not write ${pidFile}`);
    },
    async pids() {
      const master = await readLiveMasterPid(pidFile);
      if (master === undefined) throw new Error(`nginx of ${dir} is not running`);
      return { master, workers: (await readChildPids(master)).sort((x, y) => x - y) };
    },
    async remove() {
      const master = await readLiveMasterPid(pidFile);
      if (master !== undefined) {
        process.kill(master, 'SIGTERM');
        for (let i = 0; i < 500 && (await readLiveMasterPid(pidFile)) !== undefined; i++) await sleep(20);
      }
      await rm(root, { recursive: true, force: true });
    },
  };
}

/** Every file under `dir` by path relative to it: sha256 of its bytes, or `-> TARGET` for a symlink. */
export async function hashTree(dir: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const walk = async (at: string): Promise<void> => {
    for (const entry of (await readdir(at)).sort()) {
      const path = join(at, entry);
      const stat = await lstat(path);
      if (stat.isSymbolicLink()) out[relative(dir, path)] = `-> ${await readlink(path)}`;
      else if (stat.isDirectory()) await walk(path);
      else
        out[relative(dir, path)] = createHash('sha256')
          .update(await readFile(path))
          .digest('hex');
    }
  };
  await walk(dir);
  return out;
}

/**
 * The lines of `text` outside `upstream NAME { … }` (every block of that name), each with its
 * 1-based number counted from the end of the block on, so that lines added inside it do not
 * shift them: `before:N` above the block, `after:N` below it.
 */
export function linesOutsideBlock(text: string, name: string): string[] {
  const lines = text.split('\n');
  const head = new RegExp(`^\\s*upstream\\s+${name}\\s*\\{`);
  const out: string[] = [];
  let depth = 0;
  let seen = false;
  let n = 0;
  for (const line of lines) {
    if (depth === 0 && head.test(line)) {
      seen = true;
      n = 0;
    }
    if (depth > 0 || head.test(line)) {
      const code = line.replace(/#.*/, '');
      depth += (code.match(/\{/g) ?? []).length - (code.match(/\}/g) ?? []).length;
      continue;
    }
    out.push(`${seen ? 'after' : 'before'}:${++n}:${line}`);
  }
  return out;
}

/** Every file's hash, and for the upstream's file its lines outside `upstream NAME` instead. */
export async function snapshotOutsideBlock(
  tree: DebianTree,
  name = 'app',
): Promise<{ hashes: Record<string, string>; outside: string[] }> {
  const hashes = await hashTree(tree.dir);
  delete hashes[relative(tree.dir, tree.upstreamFile)];
  return { hashes, outside: linesOutsideBlock(await readFile(tree.upstreamFile, 'utf8'), name) };
}

function nginxConf(a: {
  dir: string;
  logs: string;
  lib: string;
  pidFile: string;
  errorLog: string;
  logFormat: string;
  options: DebianTreeOptions;
}): string {
  return `user nobody nogroup;
worker_processes ${a.options.workers ?? 2};
pid ${a.pidFile};
error_log ${a.errorLog};
${a.options.modulesLine === false ? '' : `include ${a.dir}/modules-enabled/*.conf;\n`}
events {
\tworker_connections 768;
\t# multi_accept on;
}

http {

\t##
\t# Basic Settings
\t##

\tsendfile on;
\ttcp_nopush on;
\ttypes_hash_max_size 2048;
\t# server_tokens off;

\tinclude mime.types;
\tdefault_type application/octet-stream;

\t# temp files live with the rest of this box's nginx state
\tclient_body_temp_path ${a.lib}/body;
\tproxy_temp_path ${a.lib}/proxy;
\tfastcgi_temp_path ${a.lib}/fastcgi;
\tuwsgi_temp_path ${a.lib}/uwsgi;
\tscgi_temp_path ${a.lib}/scgi;

\t##
\t# Logging Settings
\t##

\t# from https://example.com/blog/nginx-upstream-logging (2019)
\tlog_format ${a.logFormat} '$remote_addr - $remote_user [$time_local] '
\t                    '"$request" $status $body_bytes_sent '
\t                    '"$http_referer" "$http_user_agent" '
\t                    'rt=$request_time uct="$upstream_connect_time" uht="$upstream_header_time" urt="$upstream_response_time" '
\t                    'ua="$upstream_addr" us="$upstream_status"';

\taccess_log ${a.logs}/access.log;

\t##
\t# Virtual Host Configs
\t##

\tinclude ${a.dir}/conf.d/*.conf;
\tinclude ${a.dir}/sites-enabled/*;
}
`;
}

function site(a: { dir: string; accessLog: string; logFormat: string; options: DebianTreeOptions }): string {
  const [first, ...rest] = a.options.servers;
  if (!first) throw new Error('the tree needs at least one server');
  return `# app.example.com -- the orders API
# (moved off the old box in 2021, see ticket OPS-1142)

upstream app {
    # both boxes answer on the same port; 0.3 was added for the spring sale
\tserver ${first.host}:${first.port}   max_fails=1 fail_timeout=1s;   # primary
${rest.map((s) => `\tserver  ${s.host}:${s.port} max_fails=1  fail_timeout=1s;\n`).join('')}
    keepalive 16;   # keep a few warm
\tkeepalive_timeout 2s;
}

server {
\tlisten 127.0.0.1:${a.options.listenPort};
\tserver_name  localhost 127.0.0.1 app.example.com;

\taccess_log ${a.accessLog} ${a.logFormat};

    location / {
\t\tproxy_pass http://app;
\t\tinclude ${a.dir}/snippets/proxy-headers.conf;
\t\tproxy_next_upstream error timeout;
    }

\t# location /admin { deny all; }
}
`;
}

const PROXY_HEADERS = `# shared by every site that proxies
proxy_http_version 1.1;
proxy_set_header Connection "";
proxy_set_header Host $host;
proxy_set_header X-Real-IP $remote_addr;
proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
proxy_set_header X-Forwarded-Proto $scheme;
`;

const LEGACY_UPSTREAM = `# the old reporting service, still used by finance
upstream legacy_reports {
\tserver 127.0.0.1:9 max_fails=3 fail_timeout=30s;
\tserver 127.0.0.1:10 backup;
}
`;

const GZIP = `gzip on;
gzip_vary on;
gzip_types text/plain application/json;
`;

const DEFAULT_SITE = `# Default server configuration (not enabled on this box)
server {
\tlisten 80 default_server;
\troot /var/www/html;
}
`;

const MIME_TYPES = `types {
    text/html                                        html htm shtml;
    text/css                                         css;
    application/javascript                           js;
    application/json                                 json;
    image/png                                        png;
    text/plain                                       txt;
}
`;
