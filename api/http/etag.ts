/** ETags are the resource version: `"v7"`. They change exactly when the stored resource changes. */

/** The strong ETag of a resource version. */
export function toEtag(version: number): string {
  return `"v${version}"`;
}

/**
 * The versions an If-Match header accepts (RFC 9110: a list, any one matching passes): undefined when
 * absent or `*` (no precondition). A weak or foreign tag names no version, so a header of only such
 * tags gives an empty list, which always fails the check.
 */
export function parseIfMatch(header: string | undefined): number[] | undefined {
  if (header === undefined || header.trim() === '*') return undefined;
  return header
    .split(',')
    .map((tag) => /^"v(\d{1,9})"$/.exec(tag.trim())?.[1])
    .filter((version): version is string => version !== undefined)
    .map(Number);
}
