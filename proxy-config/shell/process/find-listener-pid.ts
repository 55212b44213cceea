import { readdir, readlink } from 'node:fs/promises';
import { portOf } from '../../core/diagnose/parse-proc-net-tcp.js';
import { readTcpSockets } from './proc-net-tcp.js';

/** The pid of the process listening on TCP `port`, found through /proc; undefined when none is visible. */
export async function findListenerPid(port: number): Promise<number | undefined> {
  const listening = (await readTcpSockets()).filter((s) => s.state === 'LISTEN' && portOf(s.local) === port);
  if (listening.length === 0) return undefined;
  const wanted = new Set(listening.map((s) => `socket:[${s.inode}]`));
  for (const entry of await readdir('/proc').catch(() => [] as string[])) {
    if (!/^\d+$/.test(entry)) continue;
    const fds = await readdir(`/proc/${entry}/fd`).catch(() => [] as string[]);
    for (const fd of fds) {
      const target = await readlink(`/proc/${entry}/fd/${fd}`).catch(() => '');
      if (wanted.has(target)) return Number(entry);
    }
  }
  return undefined;
}
