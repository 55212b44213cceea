import { readFile } from 'node:fs/promises';
import { isIP } from 'node:net';
import { execa } from 'execa';
import { ProxyopsError } from '../../core/errors.js';
import { readChildPids, readLiveMasterPid } from './nginx-master.js';

/** An instance's address, as the upstream lists it. */
export interface RefusedAddress {
  host: string;
  port: number;
}

/** Whether this machine can refuse nginx's new connections to an address, and with whose uid. */
export type RefusalSupport = { ok: true; workerUid: number } | { ok: false; reason: string };

/** The nft table every refusal lives in: one base chain per refused address, so each goes alone. */
const TABLE = 'inet proxyops';

/**
 * Can this machine make the nginx of `pidFile` see connections to an address refused, without a
 * reload? It needs nft and the right to use it (root), and workers that run as a user other than
 * ours: the rule matches the workers' uid, so proxyops's own probes still reach the address and
 * measure the instance's drain as it is.
 */
export async function refusalSupport(pidFile: string): Promise<RefusalSupport> {
  const master = await readLiveMasterPid(pidFile);
  if (master === undefined) return { ok: false, reason: `no nginx runs from ${pidFile}` };
  const uids = new Set(
    await Promise.all((await readChildPids(master)).map((pid) => readUid(pid).catch(() => undefined))),
  );
  uids.delete(undefined);
  if (uids.size !== 1) return { ok: false, reason: `the workers of nginx ${master} were not found` };
  const workerUid = [...uids][0]!;
  if (workerUid === process.getuid?.())
    return { ok: false, reason: `nginx's workers run as proxyops's own user (uid ${workerUid})` };
  const listed = await execa('nft', ['list', 'tables'], { reject: false });
  if (listed.exitCode !== 0)
    return {
      ok: false,
      reason:
        listed.failed && listed.exitCode === undefined
          ? 'nft is not installed'
          : `nft: ${firstLine(listed.stderr)}`,
    };
  return { ok: true, workerUid };
}

/**
 * From now on, a connection that nginx's workers (`workerUid`) open to `address` is refused on this
 * machine (a TCP reset to their SYN, before it leaves), so nginx passes the request on, even a POST.
 * Connections already open are untouched. This is what lets an instance close its listener with an
 * empty accept queue: a connection queued there when the listener closes is reset after nginx has
 * written its request, and a POST cannot then be passed on.
 */
export async function refuseConnects(address: RefusedAddress, workerUid: number): Promise<void> {
  const chain = chainName(address);
  const family = isIP(address.host) === 6 ? 'ip6' : 'ip';
  await nft(
    [
      `add table ${TABLE}`,
      `add chain ${TABLE} ${chain} { type filter hook output priority 0; policy accept; }`,
      `flush chain ${TABLE} ${chain}`,
      `add rule ${TABLE} ${chain} meta skuid ${workerUid} ${family} daddr ${address.host} tcp dport ${address.port} tcp flags & (syn|ack) == syn reject with tcp reset`,
    ],
    address,
  );
}

/** Lifts `refuseConnects` for `address` (nothing to do when it is not refused). */
export async function allowConnects(address: RefusedAddress): Promise<void> {
  const chain = chainName(address);
  const listed = await execa('nft', ['list', 'chain', ...TABLE.split(' '), chain], { reject: false });
  if (listed.exitCode !== 0) return;
  // Flushed first: some kernels delete only an empty chain.
  await nft([`flush chain ${TABLE} ${chain}`, `delete chain ${TABLE} ${chain}`], address);
}

/** Only an IP literal goes into a rule: a name would be resolved once, by nft, maybe otherwise than nginx does. */
export function refusable(address: RefusedAddress): boolean {
  // A zone (`fe80::1%eth0`) is not something an nft address match takes.
  return isIP(address.host) !== 0 && !address.host.includes('%') && Number.isInteger(address.port);
}

function chainName(address: RefusedAddress): string {
  if (!refusable(address))
    throw new ProxyopsError('REFUSE_FAILED', `${address.host}:${address.port} is not an IP address and port`);
  // One spelling per address (`FE80::1` and `fe80:0::1` name the same chain), so an allow finds its refusal.
  const host =
    isIP(address.host) === 6
      ? new URL(`http://[${address.host}]`).hostname.replace(/^\[|\]$/g, '')
      : address.host;
  return `refuse_${host.replace(/[^0-9a-f]/g, '_')}_${address.port}`;
}

async function nft(commands: string[], address: RefusedAddress): Promise<void> {
  const ran = await execa('nft', ['-f', '-'], { input: `${commands.join('\n')}\n`, reject: false });
  if (ran.exitCode !== 0)
    throw new ProxyopsError(
      'REFUSE_FAILED',
      `nft could not change the refusal of ${address.host}:${address.port}: ${firstLine(ran.stderr || (ran.message ?? ''))}`,
    );
}

async function readUid(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  // The effective uid (second column) is what owns the sockets the worker opens.
  return Number(status.match(/^Uid:\s*\d+\s+(\d+)/m)![1]);
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
