import { ProxyopsError } from '../errors.js';

/** `--batch`: a number of instances at a time, or a share of them. */
export type BatchSize = { count: number } | { percent: number };

/** `--batch N` or `--batch P%` as a size; BAD_OPTION naming the flag otherwise. */
export function parseBatchOption(text: string): BatchSize {
  const match = /^([1-9][0-9]*)(%?)$/.exec(text.trim());
  const value = Number(match?.[1]);
  if (!match || (match[2] === '%' && value > 100))
    throw new ProxyopsError(
      'BAD_OPTION',
      `--batch ${JSON.stringify(text)} must be a number of instances (such as 2) or a share from 1% to 100% (such as 25%)`,
    );
  return match[2] === '%' ? { percent: value } : { count: value };
}

/**
 * The rounds of a deploy in batches, each batch's rounds run together, in the plan's order. With
 * `canary`, every round of the first round's host goes first, alone (on one machine, the first
 * round); the batches follow. A share is
 * of every round, rounded up, so a batch is never empty.
 */
export function planBatches(
  rounds: ReadonlyArray<{ round: number; host?: string | undefined }>,
  options: { batch?: BatchSize; canary?: boolean } = {},
): number[][] {
  const size = !options.batch
    ? 1
    : 'count' in options.batch
      ? options.batch.count
      : Math.max(1, Math.ceil((rounds.length * options.batch.percent) / 100));
  const first = rounds[0];
  // Without hosts (one machine), the canary is the first round alone.
  const canary =
    options.canary && first
      ? rounds.filter((r) => r === first || (first.host !== undefined && r.host === first.host))
      : [];
  const rest = rounds.filter((r) => !canary.includes(r));
  const batches = canary.length > 0 ? [canary.map((r) => r.round)] : [];
  for (let at = 0; at < rest.length; at += size) batches.push(rest.slice(at, at + size).map((r) => r.round));
  return batches;
}
