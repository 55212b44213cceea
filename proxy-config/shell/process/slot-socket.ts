import { randomBytes } from 'node:crypto';
import { link, rename, rm } from 'node:fs/promises';
import { request } from 'node:http';
import { ProxyopsError } from '../../core/errors.js';

/** Longest unix socket path Linux takes (sun_path is 108 bytes with its NUL). */
const MAX_SOCKET_PATH = 107;
const PROBE_TIMEOUT_MS = 1_000;

/** A path no process listens on yet, beside `slot`, for a new instance to bind before it is renamed over the slot. */
export function freshSocketPath(slot: string): string {
  const path = `${slot.replace(/\.sock$/, '')}.${randomBytes(4).toString('hex')}.sock`;
  if (Buffer.byteLength(path) > MAX_SOCKET_PATH)
    throw new ProxyopsError(
      'SPEC_INVALID',
      `${slot}: a slot's socket path must leave room for a suffix within ${MAX_SOCKET_PATH} bytes (${path} is longer)`,
    );
  return path;
}

/**
 * Makes `slot` name the socket `socket` listens on, atomically (rename(2) over the slot path): nginx's
 * next connection to the slot reaches that process. `socket` keeps its own name too, so the slot can
 * be pointed back at it later.
 */
export async function pointSlotAt(slot: string, socket: string): Promise<void> {
  const temp = `${slot}.swap-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await link(socket, temp);
    await rename(temp, slot);
  } catch (error) {
    await rm(temp, { force: true });
    throw new ProxyopsError(
      'SLOT_SWAP_FAILED',
      `cannot point ${slot} at ${socket}: ${(error as Error).message}`,
      { cause: error },
    );
  }
}

/** Removes an instance's own socket name (never the slot path); a missing one is fine. */
export async function removeSocketName(socket: string | undefined): Promise<void> {
  if (socket !== undefined) await rm(socket, { force: true });
}

/** Status of GET `path` over the unix socket `socket` on a fresh connection; 0 without an answer. */
export function probeSocket(socket: string, path: string): Promise<number> {
  return new Promise((resolve) => {
    const req = request({ socketPath: socket, path, agent: false, timeout: PROBE_TIMEOUT_MS }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(0));
    req.end();
  });
}
