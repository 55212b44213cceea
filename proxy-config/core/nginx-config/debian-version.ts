/** Debian package versions, ordered as dpkg orders them (for backports: a fix or a directive in a Debian package). */

/** dpkg's order of one version part: `~` first, then the end, letters, then other characters. */
function order(c: string | undefined): number {
  if (c === undefined) return 0;
  if (c === '~') return -1;
  if (/[A-Za-z]/.test(c)) return c.charCodeAt(0);
  return c.charCodeAt(0) + 256;
}

function comparePart(a: string, b: string): number {
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    while ((i < a.length && !/\d/.test(a[i]!)) || (j < b.length && !/\d/.test(b[j]!))) {
      const x = i < a.length && !/\d/.test(a[i]!) ? a[i] : undefined;
      const y = j < b.length && !/\d/.test(b[j]!) ? b[j] : undefined;
      if (order(x) !== order(y)) return order(x) - order(y);
      i++;
      j++;
    }
    const x = /^\d*/.exec(a.slice(i))![0];
    const y = /^\d*/.exec(b.slice(j))![0];
    const diff = Number(x || 0) - Number(y || 0);
    if (diff !== 0) return diff;
    i += x.length;
    j += y.length;
  }
  return 0;
}

/** Debian's version order (dpkg --compare-versions): epoch, upstream version, then revision. */
export function compareDebianVersions(a: string, b: string): number {
  const split = (v: string) => {
    const epoch = /^(\d+):/.exec(v)?.[1] ?? '0';
    const rest = v.replace(/^\d+:/, '');
    const dash = rest.lastIndexOf('-');
    return {
      epoch: Number(epoch),
      upstream: dash < 0 ? rest : rest.slice(0, dash),
      revision: dash < 0 ? '' : rest.slice(dash + 1),
    };
  };
  const [x, y] = [split(a), split(b)];
  return x.epoch - y.epoch || comparePart(x.upstream, y.upstream) || comparePart(x.revision, y.revision);
}

/** The nginx release a Debian package version packages: `1.22.1-9+deb12u12` → `1.22.1`. */
export const upstreamOf = (debian: string): string => debian.replace(/^\d+:/, '').replace(/-[^-]*$/, '');
