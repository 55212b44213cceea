import { parseNginxSize } from '../nginx-config/units.js';

/** Bytes in an nginx size (`1m`, `512k`, `100`); the spec schema has already checked its form. */
export function toBytes(size: string): number {
  const bytes = parseNginxSize(size);
  if (bytes === undefined) throw new Error(`not an nginx size: ${size}`);
  return bytes;
}

/** An nginx time value for a duration in seconds: `30s` when whole, else `1500ms`. */
export function toNginxDuration(seconds: number): string {
  return Number.isInteger(seconds) ? `${seconds}s` : `${Math.round(seconds * 1000)}ms`;
}
