/** ETags are the resource version: `"v7"`. They change exactly when the stored resource changes. */

/** The strong ETag of a resource version. */
export function toEtag(version: number): string {
  return `"v${version}"`;
}

/**
 * The version an If-Match header demands: undefined when absent or `*` (no precondition), -1 when
 * it names something no resource ever has (a weak or foreign tag), which always fails the check.
 */
export function parseIfMatch(header: string | undefined): number | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  const first = header.split(',')[0]?.trim() ?? '';
  const match = /^"v(\d{1,9})"$/.exec(first);
  return match?.[1] ? Number(match[1]) : -1;
}
