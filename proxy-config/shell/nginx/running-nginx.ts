// fs.promises is read at each call: importing node:fs/promises would load it (and readline) at start.
import { promises as fsp } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { isProxyopsError, ProxyopsError } from '../../core/errors.js';
import {
  parseConfigureArguments,
  parseMasterCommandLine,
} from '../../core/nginx-config/master-command-line.js';
import { splitNginxDump } from '../../core/nginx-config/split-nginx-dump.js';
import type { NginxConfig } from '../../core/nginx-config/types.js';
import { pidsWithCommandLine, readPidFile } from '../process/proc-process-tree.js';

/** A running nginx master and where it runs from. */
export interface RunningNginx {
  pid: number;
  binary: string;
  /** The prefix relative paths in its config resolve against (`-p`, else the compiled-in one). */
  prefix: string;
  /** Its main config file (`-c`, else the compiled-in one). */
  configFile: string;
}

/** The binary a master runs: /proc/PID/exe (needs the same user or root), else argv[0]. */
async function binaryOf(pid: number, argv0: string): Promise<string> {
  // A binary upgraded in place since the master started reads `/usr/sbin/nginx (deleted)`.
  const exe = await fsp.readlink(`/proc/${pid}/exe`).catch(() => argv0);
  return exe.replace(/ \(deleted\)$/, '');
}

async function compiledDefaults(binary: string): Promise<ReturnType<typeof parseConfigureArguments>> {
  // Imported here: execa is a hundred modules, and `logs stats` looks for a running nginx on every run.
  const { execa } = await import('execa');
  const result = await execa(binary, ['-V'], { reject: false, all: true });
  return parseConfigureArguments(result.all ?? '');
}

/**
 * A `-p` given on the command line as nginx read it: relative to the directory the master was
 * started from (`cd /srv/x && nginx -p .`), not to ours. LIVE_NGINX_UNREADABLE when /proc hides it.
 */
async function absolutePrefix(pid: number, prefix: string): Promise<string> {
  if (isAbsolute(prefix)) return prefix;
  const cwd = await fsp.readlink(`/proc/${pid}/cwd`).catch(() => undefined);
  if (cwd === undefined)
    throw new ProxyopsError(
      'LIVE_NGINX_UNREADABLE',
      `nginx master ${pid} runs with the relative prefix -p ${prefix}, and /proc/${pid}/cwd, where it was started, cannot be read by this user`,
    );
  return resolve(cwd.replace(/ \(deleted\)$/, ''), prefix);
}

async function describeMaster(pid: number, title: string): Promise<RunningNginx | null> {
  const line = parseMasterCommandLine(title);
  if (!line) return null;
  const binary = await binaryOf(pid, line.binary);
  const defaults = line.prefix && line.config ? null : await compiledDefaults(binary);
  // A relative -c is relative to the prefix (nginx's own rule), so the prefix is made absolute first.
  const prefix = line.prefix
    ? await absolutePrefix(pid, line.prefix)
    : (defaults?.prefix ?? '/usr/share/nginx');
  const config = line.config ?? defaults?.config ?? 'conf/nginx.conf';
  return { pid, binary, prefix, configFile: isAbsolute(config) ? config : join(prefix, config) };
}

/**
 * Every nginx master running on this machine, from /proc; with `keep`, only those it keeps, asked
 * before a master is described (which may run `nginx -V`).
 */
export async function findRunningNginx(keep?: (pid: number) => Promise<boolean>): Promise<RunningNginx[]> {
  const all = pidsWithCommandLine('nginx: master');
  const kept = keep ? await Promise.all(all.map((p) => keep(p.pid))) : all.map(() => true);
  const masters = all.filter((_, i) => kept[i]);
  // One whose relative -p this user cannot place (another user's /proc/PID/cwd) is left out: a
  // search over every master must not fail for one it cannot read; asked by pid, it is an error.
  const found = await Promise.all(
    masters.map((p) =>
      describeMaster(p.pid, p.cmdline).catch((error: unknown) =>
        isProxyopsError(error) ? null : Promise.reject(error),
      ),
    ),
  );
  return found.filter((m): m is RunningNginx => m !== null).sort((a, b) => a.pid - b.pid);
}

/** The nginx master running as `pid`, read from /proc; null when /proc shows none there. */
export async function runningNginxAt(pid: number): Promise<RunningNginx | null> {
  const title = (await fsp.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''))
    .replaceAll('\0', ' ')
    .trim();
  return describeMaster(pid, title);
}

/** The master a pid file names; BAD_OPTION when it names no running nginx master. */
export async function runningNginxOf(pidFile: string): Promise<RunningNginx> {
  const pid = await readPidFile(pidFile);
  const master = await runningNginxAt(pid);
  if (!master)
    throw new ProxyopsError(
      'BAD_OPTION',
      `--pid-file ${pidFile} names pid ${pid}, which is no running nginx master`,
    );
  return master;
}

/**
 * The one nginx to diagnose: the pid file's master, else the only master running; null when none
 * runs. Several masters: BAD_OPTION listing them, asking for `choose` (the caller's options).
 */
export async function chooseRunningNginx(
  pidFile?: string,
  choose = '--pid-file FILE or --config FILE',
): Promise<RunningNginx | null> {
  if (pidFile) return runningNginxOf(pidFile);
  const masters = await findRunningNginx();
  if (masters.length <= 1) return masters[0] ?? null;
  const list = masters.map((m) => `pid ${m.pid} (${m.binary} -p ${m.prefix} -c ${m.configFile})`).join('; ');
  throw new ProxyopsError(
    'BAD_OPTION',
    `${masters.length} nginx masters run: ${list}; choose one with ${choose}`,
  );
}

/**
 * A running nginx's whole config (its includes too), read the way nginx reads it. Not checked
 * again: that nginx accepted it, whatever its version.
 */
export async function readRunningConfig(master: RunningNginx): Promise<NginxConfig> {
  // Imported here: the config reader (parser, directive table) is needed only when a master runs.
  const { readNginxConfig } = await import('./read-nginx-config.js');
  return readNginxConfig(master.configFile, { checkDirectives: false });
}

/** A running master's config as its own binary dumps it (`nginx -T` with its `-p` and `-c`). */
export interface DumpedConfig {
  /** Every file nginx read, by the path it read it from, main file first. */
  files: Map<string, string>;
  config: NginxConfig;
}

/**
 * Runs `nginx -T` with the master's binary, prefix and main file, and parses the dump with the
 * project's reader. LIVE_NGINX_UNREADABLE with nginx's own words when it cannot (a file edited
 * since into one nginx refuses, a file this user may not read).
 */
export async function dumpRunningConfig(master: RunningNginx): Promise<DumpedConfig> {
  const { execa } = await import('execa');
  const prefix = master.prefix.endsWith('/') ? master.prefix : `${master.prefix}/`;
  const result = await execa(master.binary, ['-T', '-q', '-p', prefix, '-c', master.configFile], {
    reject: false,
    stdin: 'ignore',
    timeout: 15_000,
  });
  const files = result.exitCode === 0 ? splitNginxDump(result.stdout) : undefined;
  if (!files) {
    const said = result.stderr.split('\n').find((l) => /\[(emerg|alert|crit)\]/.test(l)) ?? result.stderr;
    throw new ProxyopsError(
      'LIVE_NGINX_UNREADABLE',
      `cannot read the config nginx master ${master.pid} runs (${master.binary} -T -c ${master.configFile}): ${said.trim() || `exit ${result.exitCode}`}`,
    );
  }
  const { readNginxConfig } = await import('./read-nginx-config.js');
  const config = await readNginxConfig(master.configFile, { checkDirectives: false, text: result.stdout });
  return { files, config };
}
