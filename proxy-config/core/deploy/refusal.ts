/** An instance's address, as the upstream lists it. */
export interface RefusedAddress {
  host: string;
  port: number;
}

/**
 * Whether a deploy refuses nginx's new connections to each old instance of a blue/green pair before
 * it stops it (see docs/deploys.md, "The alternate path"): `ok`, or why not, for the plan to say.
 */
export type RefusalVerdict = { ok: true } | { ok: false; reason: string };

/** What one nginx host said of refusing there: nothing when it can, else why not. */
export interface HostRefusal {
  /** `this machine`, or the ssh destination. */
  host: string;
  unrefusable?: string;
}

const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** 4 or 6 for an IPv4 or IPv6 literal (no zone), else 0; as node:net's isIP, without importing it into the core. */
export function ipVersion(host: string): 0 | 4 | 6 {
  if (IPV4.test(host)) return 4;
  if (!host.includes(':') || !/^[0-9a-fA-F:.]+$/.test(host)) return 0;
  try {
    new URL(`http://[${host}]`);
    return 6;
  } catch {
    return 0;
  }
}

/**
 * Only an IP literal (no zone) goes into an nft rule: a name would be resolved once, by nft, maybe
 * otherwise than nginx resolves it, and a zone is not something an address match takes.
 */
export function isRefusable(address: RefusedAddress): boolean {
  const { port } = address;
  return ipVersion(address.host) !== 0 && Number.isInteger(port) && port > 0 && port < 65536;
}

/**
 * One spelling per address: IPv6 in its shortest lower-case form (`FE80:0::1` is `fe80::1`), an
 * IPv4-mapped IPv6 address as the IPv4 address it is (that is how the kernel matches it).
 */
export function canonicalHost(host: string): string {
  if (ipVersion(host) !== 6) return host;
  const short = new URL(`http://[${host}]`).hostname.slice(1, -1);
  const mapped = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(short);
  if (!mapped) return short;
  const [high, low] = [parseInt(mapped[1]!, 16), parseInt(mapped[2]!, 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/** One process of an nginx family as the refusal check reads it. */
export interface FamilyProcess {
  cmdline: string;
  /** The effective uid, which owns the sockets the process opens. */
  uid: number;
}

/**
 * The uid nginx's workers run as, from the master and its children. A child that still carries the
 * master's title was forked a moment ago: nginx drops to its `user` before a worker (or cache
 * manager) takes its own title, so until then its uid is the master's, not the workers'
 * (`starting`). A master that has written its pid file may not have forked any yet (`none`). Both
 * are worth asking again.
 */
export function workersUid(
  master: FamilyProcess,
  children: FamilyProcess[],
): { uid: number } | { unknown: 'starting' | 'none' | 'mixed' } {
  if (children.some((child) => child.cmdline === master.cmdline)) return { unknown: 'starting' };
  const uids = new Set(children.map((child) => child.uid));
  if (uids.size === 0) return { unknown: 'none' };
  if (uids.size > 1) return { unknown: 'mixed' };
  return { uid: [...uids][0]! };
}

/** The verdict for a deploy: every address refusable, and every nginx host able to refuse. */
export function judgeRefusal(addresses: RefusedAddress[], hosts: HostRefusal[]): RefusalVerdict {
  const named = addresses.find((a) => !isRefusable(a));
  if (named) return { ok: false, reason: `${named.host}:${named.port} is not an IP address and port` };
  const unable = hosts.find((h) => h.unrefusable !== undefined);
  if (unable) return { ok: false, reason: `${unable.host}: ${unable.unrefusable}` };
  return { ok: true };
}
