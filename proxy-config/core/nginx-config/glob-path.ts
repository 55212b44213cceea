/** The characters that make an include a glob (nginx uses glob(3) only when one is present). */
export const GLOB_CHARS = /[*?[]/;

/** A glob over a whole absolute path, each segment matched as the reader's expandGlob matches it. */
export function globPath(pattern: string): RegExp {
  const segments = pattern.split('/').filter(Boolean);
  const sources = segments.map((segment) => globSegment(segment).source.replace(/^\^|\$$/g, ''));
  return new RegExp(`^/${sources.join('/')}$`);
}

/** One path segment of a glob, as glob(3) matches it. */
export function globSegment(segment: string): RegExp {
  let source = '';
  for (let i = 0; i < segment.length; i++) {
    const ch = segment[i] as string;
    if (ch === '*') source += '[^/]*';
    else if (ch === '?') source += '[^/]';
    else if (ch === '[') {
      const close = segment.indexOf(']', i + 2);
      if (close === -1) source += '\\[';
      else {
        const body = segment
          .slice(i + 1, close)
          .replace(/^!/, '^')
          .replace(/\\/g, '\\\\');
        source += `[${body}]`;
        i = close;
      }
    } else source += ch.replace(/[.+^${}()|\\\]]/g, '\\$&');
  }
  // Like glob(3): a wildcard never matches a leading dot unless the pattern starts with one.
  return new RegExp(`^${segment.startsWith('.') ? '' : '(?!\\.)'}${source}$`);
}
