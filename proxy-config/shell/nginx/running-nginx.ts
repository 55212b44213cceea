// fs.promises is read at each call: importing node:fs/promises would load it (and readline) at start.
import { promises as fsp } from 'node:fs';
import { isAbsolute, join } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import {
  parseConfigureArguments,
  parseMasterCommandLine,
} from '../../core/nginx-config/master-command-line.js';
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
  return fsp.readlink(`/proc/${pid}/exe`).catch(() => argv0);
}

async function compiledDefaults(binary: string): Promise<ReturnType<typeof parseConfigureArguments>> {
  // Imported here: execa is a hundred modules, and `logs stats` looks for a running nginx on every run.
  const { execa } = await import('execa');
  const result = await execa(binary, ['-V'], { reject: false, all: true });
  return parseConfigureArguments(result.all ?? '');
}

async function describeMaster(pid: number, title: string): Promise<RunningNginx | null> {
  const line = parseMasterCommandLine(title);
  if (!line) return null;
  const binary = await binaryOf(pid, line.binary);
  const defaults = line.prefix && line.config ? null : await compiledDefaults(binary);
  const prefix = line.prefix ?? defaults?.prefix ?? '/usr/share/nginx';
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
  const found = await Promise.all(masters.map((p) => describeMaster(p.pid, p.cmdline)));
  return found.filter((m): m is RunningNginx => m !== null).sort((a, b) => a.pid - b.pid);
}

/** The master a pid file names; BAD_OPTION when it names no running nginx master. */
export async function runningNginxOf(pidFile: string): Promise<RunningNginx> {
  const pid = await readPidFile(pidFile);
  const title = (await fsp.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => ''))
    .replaceAll('\0', ' ')
    .trim();
  const master = await describeMaster(pid, title);
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
