/** What an nginx master's command line says about where it runs from. */
export interface MasterCommandLine {
  /** The binary as started (argv[0]). */
  binary: string;
  /** `-p`, when given. */
  prefix: string | null;
  /** `-c`, when given. */
  config: string | null;
}

const TITLE = 'nginx: master process ';

/**
 * Reads a master's process title (`nginx: master process /usr/sbin/nginx -p /srv -c conf/nginx.conf`),
 * which nginx writes from its argv; null for any other process. Values hold no spaces (argv is joined).
 */
export function parseMasterCommandLine(title: string): MasterCommandLine | null {
  if (!title.startsWith(TITLE)) return null;
  const words = title.slice(TITLE.length).trim().split(/\s+/);
  const [binary = 'nginx', ...rest] = words;
  const parsed: MasterCommandLine = { binary, prefix: null, config: null };
  for (let i = 0; i < rest.length; i++) {
    const word = rest[i]!;
    // nginx takes `-p DIR` and `-pDIR` alike.
    const value = (flag: string) => (word === flag ? (rest[++i] ?? null) : word.slice(flag.length));
    if (word.startsWith('-p')) parsed.prefix = value('-p');
    else if (word.startsWith('-c')) parsed.config = value('-c');
    else if (word.startsWith('-g') && word === '-g') i++;
  }
  return parsed;
}

/** The compiled-in defaults `nginx -V` prints (`--prefix=`, `--conf-path=`, `--pid-path=`). */
export function parseConfigureArguments(text: string): {
  prefix: string | null;
  config: string | null;
  pidFile: string | null;
} {
  const arg = (name: string) => new RegExp(`--${name}=(\\S+)`).exec(text)?.[1] ?? null;
  return { prefix: arg('prefix'), config: arg('conf-path'), pidFile: arg('pid-path') };
}
