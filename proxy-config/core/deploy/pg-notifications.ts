/**
 * LISTEN/NOTIFY for an embedded PostgreSQL that serves one session to many clients: the session's
 * notifications come back in the output of whichever client's batch sent them, so the server must
 * learn who listens to what and hand each NotificationResponse to those clients instead.
 */

/** A change of a client's subscriptions read from its query text. */
export type ListenChange = { listen: string } | { unlisten: string } | { unlistenAll: true };

const LISTEN = /^\s*(UNLISTEN|LISTEN)\s+(\*|"((?:[^"]|"")+)"|([A-Za-z_][A-Za-z0-9_$]*))\s*;?\s*$/i;

/** What a simple Query ('Q') or Parse ('P') message does to the client's subscriptions, if anything. */
export function readListenChange(type: string, bytes: Uint8Array): ListenChange | undefined {
  const body = Buffer.from(bytes.buffer, bytes.byteOffset + 5, bytes.byteLength - 5);
  let text: string;
  if (type === 'Q') text = body.toString('utf8', 0, body.indexOf(0));
  else if (type === 'P') {
    const nameEnd = body.indexOf(0);
    text = body.toString('utf8', nameEnd + 1, body.indexOf(0, nameEnd + 1));
  } else return undefined;
  const match = LISTEN.exec(text);
  if (!match) return undefined;
  const verb = match[1]!.toUpperCase();
  if (match[2] === '*') return verb === 'UNLISTEN' ? { unlistenAll: true } : undefined;
  // Unquoted identifiers fold to lower case, as PostgreSQL does.
  const channel = match[3] !== undefined ? match[3].replaceAll('""', '"') : match[4]!.toLowerCase();
  return verb === 'LISTEN' ? { listen: channel } : { unlisten: channel };
}

/** A backend message stream cut into whole messages, with notifications taken out. */
export interface SplitBackendOutput {
  /** Bytes for the client that ran the batch, in order, without NotificationResponse messages. */
  passThrough: Buffer;
  /** NotificationResponse messages ('A'), whole, with their channel. */
  notifications: Array<{ channel: string; bytes: Buffer }>;
  /** An unfinished last message, to be prefixed to the next chunk. */
  rest: Buffer;
}

/** Splits backend output into whole messages and takes the NotificationResponse ('A') ones out. */
export function splitBackendOutput(buffer: Buffer): SplitBackendOutput {
  const kept: Buffer[] = [];
  const notifications: SplitBackendOutput['notifications'] = [];
  let at = 0;
  let keptFrom = 0;
  while (buffer.length - at >= 5) {
    const length = 1 + buffer.readInt32BE(at + 1);
    if (buffer.length - at < length) break;
    if (buffer[at] === 0x41) {
      kept.push(buffer.subarray(keptFrom, at));
      const channelStart = at + 9;
      const channel = buffer.toString('utf8', channelStart, buffer.indexOf(0, channelStart));
      notifications.push({ channel, bytes: buffer.subarray(at, at + length) });
      keptFrom = at + length;
    }
    at += length;
  }
  kept.push(buffer.subarray(keptFrom, at));
  return { passThrough: Buffer.concat(kept), notifications, rest: buffer.subarray(at) };
}
