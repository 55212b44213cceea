/** One socket line of `/proc/net/tcp` or `/proc/net/tcp6`. */
export interface TcpSocket {
  local: string;
  remote: string;
  state: TcpState;
  /** The socket's inode: `/proc/PID/fd/N` links to `socket:[inode]` for the process that holds it. */
  inode: string;
}

/** The TCP states of include/net/tcp_states.h, by their hex code in /proc/net/tcp. */
export const TCP_STATES = {
  '01': 'ESTABLISHED',
  '02': 'SYN_SENT',
  '03': 'SYN_RECV',
  '04': 'FIN_WAIT1',
  '05': 'FIN_WAIT2',
  '06': 'TIME_WAIT',
  '07': 'CLOSE',
  '08': 'CLOSE_WAIT',
  '09': 'LAST_ACK',
  '0A': 'LISTEN',
  '0B': 'CLOSING',
} as const;

/** A TCP state name. */
export type TcpState = (typeof TCP_STATES)[keyof typeof TCP_STATES] | 'UNKNOWN';

function wordsLittleEndian(hex: string): number[] {
  const bytes: number[] = [];
  for (let w = 0; w < hex.length; w += 8) {
    const word = hex.slice(w, w + 8);
    for (let b = 6; b >= 0; b -= 2) bytes.push(parseInt(word.slice(b, b + 2), 16));
  }
  return bytes;
}

function formatIpv6(bytes: number[]): string {
  const isV4Mapped = bytes.slice(0, 10).every((b) => b === 0) && bytes[10] === 0xff && bytes[11] === 0xff;
  if (isV4Mapped) return bytes.slice(12).join('.');
  const groups: number[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((bytes[i] ?? 0) << 8) | (bytes[i + 1] ?? 0));
  // Compress the longest run of two or more zero groups, as inet_ntop does.
  let best = { start: -1, length: 1 };
  for (let i = 0; i < 8;) {
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > best.length) best = { start: i, length: j - i };
    i = j === i ? i + 1 : j;
  }
  const hex = (part: number[]) => part.map((g) => g.toString(16)).join(':');
  if (best.start < 0) return `[${hex(groups)}]`;
  const head = hex(groups.slice(0, best.start));
  const tail = hex(groups.slice(best.start + best.length));
  return `[${head}::${tail}]`;
}

/** Turns `0100007F:1F90` (or its 32-digit IPv6 form) into `127.0.0.1:8080` / `[::1]:8080`. */
export function toEndpoint(hex: string): string {
  const [address = '', port = '0'] = hex.split(':');
  const bytes = wordsLittleEndian(address);
  const host = address.length === 8 ? bytes.join('.') : formatIpv6(bytes);
  return `${host}:${parseInt(port, 16)}`;
}

/** Parses the text of `/proc/net/tcp` or `/proc/net/tcp6` (header line skipped). */
export function parseProcNetTcp(text: string): TcpSocket[] {
  const sockets: TcpSocket[] = [];
  for (const line of text.split('\n').slice(1)) {
    const fields = line.trim().split(/\s+/);
    if (fields.length < 4 || !fields[0]?.endsWith(':')) continue;
    const state = TCP_STATES[(fields[3] ?? '').toUpperCase() as keyof typeof TCP_STATES] ?? 'UNKNOWN';
    sockets.push({
      local: toEndpoint(fields[1] ?? ''),
      remote: toEndpoint(fields[2] ?? ''),
      state,
      inode: fields[9] ?? '',
    });
  }
  return sockets;
}

/** The port of an endpoint such as `127.0.0.1:8080` or `[::1]:8080`. */
export function portOf(endpoint: string): number {
  return Number(endpoint.slice(endpoint.lastIndexOf(':') + 1));
}

/** Counts TIME_WAIT sockets per endpoint, crediting both ends of each socket. */
export function countTimeWaitByEndpoint(sockets: readonly TcpSocket[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const socket of sockets) {
    if (socket.state !== 'TIME_WAIT') continue;
    for (const end of [socket.local, socket.remote]) counts[end] = (counts[end] ?? 0) + 1;
  }
  return counts;
}
