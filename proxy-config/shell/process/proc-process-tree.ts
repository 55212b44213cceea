import { readdirSync, readFileSync, readlinkSync, promises as fsp } from 'node:fs';
import { ProxyopsError } from '../../core/errors.js';

/** A process as /proc shows it. */
export interface ProcessInfo {
  pid: number;
  ppid: number;
  /** The command line as one string (nginx rewrites it: `nginx: worker process`). */
  cmdline: string;
}

/** Reads the pid written in a pid file; BAD_OPTION when the file is missing or holds no pid. */
export async function readPidFile(path: string): Promise<number> {
  let text: string;
  try {
    text = await fsp.readFile(path, 'utf8');
  } catch (error) {
    throw new ProxyopsError(
      'BAD_OPTION',
      `cannot read pid file ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      {
        cause: error,
      },
    );
  }
  const pid = Number(text.trim());
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new ProxyopsError(
      'BAD_OPTION',
      `pid file ${path} holds no pid (${JSON.stringify(text.trim().slice(0, 40))})`,
    );
  }
  return pid;
}

/** True when a process with that pid exists (signal 0). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readCommandLine(pid: number): string {
  return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
}

function readProcess(pid: number): ProcessInfo | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name in parentheses may hold spaces; the fields after the last ')' are fixed.
    const after = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { pid, ppid: Number(after[1]), cmdline: readCommandLine(pid) };
  } catch {
    return null; // the process exited while we looked
  }
}

function allPids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number);
}

/**
 * Every process on the machine (those that exit while being read are left out). Read synchronously:
 * /proc files are made in memory, and two promise round trips per process cost `logs stats`, which
 * looks for a running nginx on every run, tens of milliseconds on a busy host.
 */
export async function listProcesses(): Promise<ProcessInfo[]> {
  return allPids()
    .map(readProcess)
    .filter((info): info is ProcessInfo => info !== null);
}

/** The pids whose command line starts with `prefix`: one /proc read a process, where `listProcesses` takes two. */
export function pidsWithCommandLine(prefix: string): Array<{ pid: number; cmdline: string }> {
  const found: Array<{ pid: number; cmdline: string }> = [];
  for (const pid of allPids()) {
    let cmdline: string;
    try {
      cmdline = readCommandLine(pid);
    } catch {
      continue; // the process exited while we looked
    }
    if (cmdline.startsWith(prefix)) found.push({ pid, cmdline });
  }
  return found;
}

/**
 * The paths a process has open (its /proc/PID/fd links), or null when this user may not see them.
 * Read synchronously, as the rest of /proc here: a promise per link was a hop to libuv's thread pool
 * each, and on a loaded host every hop waits for a core (bench:cli, a one-line `logs stats`).
 */
export function openPathsOf(pid: number): Set<string> | null {
  const dir = `/proc/${pid}/fd`;
  let fds: string[];
  try {
    fds = readdirSync(dir);
  } catch {
    return null;
  }
  const paths = new Set<string>();
  for (const fd of fds) {
    try {
      paths.add(readlinkSync(`${dir}/${fd}`));
    } catch {
      // closed while we looked
    }
  }
  return paths;
}

/** A master and its direct children (nginx workers, cache manager), found by their parent pid. */
export async function processFamily(masterPid: number): Promise<ProcessInfo[]> {
  const all = await listProcesses();
  return all.filter((info) => info.pid === masterPid || info.ppid === masterPid);
}

/** nginx masters and their children: of the pid file's master when given, else of every master running. */
export async function findNginxProcesses(pidFile?: string): Promise<ProcessInfo[]> {
  if (pidFile) return processFamily(await readPidFile(pidFile));
  const all = await listProcesses();
  const masters = new Set(
    all.filter((info) => info.cmdline.startsWith('nginx: master')).map((info) => info.pid),
  );
  return all.filter((info) => masters.has(info.pid) || masters.has(info.ppid));
}
