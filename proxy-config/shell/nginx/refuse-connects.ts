import { setTimeout as sleep } from 'node:timers/promises';
import { execa } from 'execa';
import {
  canonicalHost,
  ipVersion,
  isRefusable,
  workersUid,
  type FamilyProcess,
  type RefusedAddress,
} from '../../core/deploy/refusal.js';
import { ProxyopsError } from '../../core/errors.js';
import { processFamily, type ProcessInfo } from '../process/proc-process-tree.js';
import { readLiveMasterPid } from './nginx-master.js';
import { readProcessCredentials } from './worker-access.js';

/** Whether this machine can refuse nginx's new connections to an address, and with whose uid. */
export type RefusalSupport = { ok: true; workerUid: number } | { ok: false; reason: string };

/** The nft table every refusal lives in: one base chain per refused address, so each goes alone. */
const TABLE = 'inet proxyops';
/**
 * The chain's place on the output hook: before NAT (-100), so an address that a DNAT rule maps
 * elsewhere (a Docker published port) is matched as nginx wrote it.
 */
const CHAIN_SPEC = '{ type filter hook output priority -150; policy accept; }';

/**
 * Can this machine make the nginx of `pidFile` see connections to an address refused, without a
 * reload? It needs nft and the right to use it (root), and workers that run as a user other than
 * ours: the rule matches the workers' uid, so proxyops's own probes still reach the address and
 * measure the instance's drain as it is.
 */
export async function refusalSupport(
  pidFile: string,
  options: { settleMs?: number } = {},
): Promise<RefusalSupport> {
  const master = await readLiveMasterPid(pidFile);
  if (master === undefined)
    return {
      ok: false,
      reason: `no nginx runs from ${pidFile} (deploy on the nginx host, or set paths.pidFile to its pid file)`,
    };
  const settleMs = options.settleMs ?? 10_000;
  const found = await readWorkersUid(master, settleMs);
  if ('unknown' in found)
    return {
      ok: false,
      reason:
        found.unknown === 'starting'
          ? `the workers of nginx ${master} were still starting after ${settleMs / 1000} s`
          : found.unknown === 'mixed'
            ? `the workers of nginx ${master} run as different users`
            : `no worker processes of nginx ${master} were found (master_process off?)`,
    };
  const workerUid = found.uid;
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
  const host = canonicalHost(address.host);
  const family = ipVersion(host) === 6 ? 'ip6' : 'ip';
  await nft(
    [
      ...emptyChain(chain),
      `add rule ${TABLE} ${chain} meta skuid ${workerUid} ${family} daddr ${host} tcp dport ${address.port} tcp flags & (syn|ack) == syn reject with tcp reset`,
    ],
    address,
  );
}

/**
 * Lifts `refuseConnects` for `address`, in one transaction that also holds when it is not refused
 * (the chain is made, then emptied and deleted). Without nft there is nothing to lift.
 */
export async function allowConnects(address: RefusedAddress): Promise<void> {
  const chain = chainName(address);
  await nft([...emptyChain(chain), `delete chain ${TABLE} ${chain}`], address, { missingIsNothing: true });
}

/** The address's chain, made when missing and emptied: what both a refusal and its lifting start from. */
function emptyChain(chain: string): string[] {
  return [`add table ${TABLE}`, `add chain ${TABLE} ${chain} ${CHAIN_SPEC}`, `flush chain ${TABLE} ${chain}`];
}

function chainName(address: RefusedAddress): string {
  if (!isRefusable(address))
    throw new ProxyopsError('REFUSE_FAILED', `${address.host}:${address.port} is not an IP address and port`);
  return `refuse_${canonicalHost(address.host).replace(/[^0-9a-f]/g, '_')}_${address.port}`;
}

async function nft(
  commands: string[],
  address: RefusedAddress,
  options: { missingIsNothing?: boolean } = {},
): Promise<void> {
  const ran = await execa('nft', ['-f', '-'], { input: `${commands.join('\n')}\n`, reject: false });
  if (ran.exitCode === 0) return;
  const notInstalled = (ran as { code?: string }).code === 'ENOENT';
  if (notInstalled && options.missingIsNothing) return;
  throw new ProxyopsError(
    'REFUSE_FAILED',
    `nft could not change the refusal of ${address.host}:${address.port}: ${notInstalled ? 'nft is not installed' : firstLine(ran.stderr || (ran.message ?? ''))}`,
  );
}

/** How often the workers are looked at again while they are starting. */
const SETTLE_POLL_MS = 50;

/**
 * The workers' uid, asked again while none is there yet or one is still starting (see
 * `workersUid`), for at most `settleMs`: a worker's modules (an `init_worker_by_lua`) run before it
 * takes its title.
 */
async function readWorkersUid(master: number, settleMs: number): Promise<ReturnType<typeof workersUid>> {
  const deadline = performance.now() + settleMs;
  for (;;) {
    const family = await Promise.all((await processFamily(master)).map(withUid));
    const head = family.find((p) => p?.pid === master);
    const found = head
      ? workersUid(
          head,
          family.filter((p): p is ProcessInfo & FamilyProcess => p !== undefined && p.pid !== master),
        )
      : { unknown: 'none' as const };
    const settled = !('unknown' in found) || found.unknown === 'mixed';
    if (settled || !head || performance.now() > deadline) return found;
    await sleep(SETTLE_POLL_MS);
  }
}

/** The process with its effective uid, or undefined when it exited while we looked. */
async function withUid(info: ProcessInfo): Promise<(ProcessInfo & FamilyProcess) | undefined> {
  const credentials = await readProcessCredentials(info.pid);
  return credentials && { ...info, uid: credentials.uid };
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
