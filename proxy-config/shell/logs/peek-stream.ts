import { Readable } from 'node:stream';

/**
 * Reads the first `bytes` (or all, when shorter) of a stream and returns them with a stream that
 * yields the same bytes again and then the rest, so a look at standard input consumes nothing.
 */
export async function peekStream(
  stream: Readable,
  bytes: number,
): Promise<{ head: Buffer; ended: boolean; stream: Readable }> {
  const iterator = stream[Symbol.asyncIterator]() as AsyncIterator<Buffer | string>;
  const chunks: Buffer[] = [];
  let size = 0;
  let ended = false;
  while (size < bytes) {
    const next = await iterator.next();
    if (next.done) {
      ended = true;
      break;
    }
    const chunk = Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value, 'latin1');
    chunks.push(chunk);
    size += chunk.length;
  }
  async function* replay(): AsyncGenerator<Buffer> {
    yield* chunks;
    if (ended) return;
    for (;;) {
      const next = await iterator.next();
      if (next.done) return;
      yield Buffer.isBuffer(next.value) ? next.value : Buffer.from(next.value, 'latin1');
    }
  }
  return { head: Buffer.concat(chunks), ended, stream: Readable.from(replay(), { objectMode: false }) };
}
