/** One PostgreSQL frontend message and whether the client waits for answers after it. */
export interface PgFrame {
  bytes: Uint8Array;
  /** The first message of a connection has no type byte (startup, SSL or cancel request). */
  untyped: boolean;
  /** Sync, a simple Query, Flush, Terminate, or an untyped message: the end of a batch. */
  endsBatch: boolean;
  type: string;
}

const BATCH_ENDS = new Set(['S', 'Q', 'H', 'X']);

/**
 * Splits the bytes a client sent into whole messages; `rest` is an unfinished last message. With
 * `untypedFirst`, the first message is a length-prefixed startup packet without a type byte.
 */
export function splitPgFrames(buffer: Buffer, untypedFirst: boolean): { frames: PgFrame[]; rest: Buffer } {
  const frames: PgFrame[] = [];
  let at = 0;
  let untyped = untypedFirst;
  for (;;) {
    if (untyped) {
      if (buffer.length - at < 4) break;
      const length = buffer.readInt32BE(at);
      if (buffer.length - at < length) break;
      frames.push({ bytes: buffer.subarray(at, at + length), untyped: true, endsBatch: true, type: '' });
      at += length;
      untyped = false;
      continue;
    }
    if (buffer.length - at < 5) break;
    const length = 1 + buffer.readInt32BE(at + 1);
    if (buffer.length - at < length) break;
    const type = String.fromCharCode(buffer[at]!);
    frames.push({
      bytes: buffer.subarray(at, at + length),
      untyped: false,
      endsBatch: BATCH_ENDS.has(type),
      type,
    });
    at += length;
  }
  return { frames, rest: buffer.subarray(at) };
}

/** The request code of an untyped message: SSL (80877103), GSS encryption (80877104), cancel (80877102) or a protocol version. */
export function untypedCode(frame: PgFrame): number {
  return frame.bytes.length >= 8 ? Buffer.from(frame.bytes).readInt32BE(4) : 0;
}

/** Request codes answered with a refusal ('N') so the client continues unencrypted. */
export const ENCRYPTION_REQUESTS = new Set([80877103, 80877104]);
/** A cancel request: not supported by an embedded database; the connection is closed. */
export const CANCEL_REQUEST = 80877102;
