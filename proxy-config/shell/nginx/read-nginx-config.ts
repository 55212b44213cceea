import { lstat, readdir, readlink, stat } from 'node:fs/promises';
import { dirname, isAbsolute, join, resolve, sep } from 'node:path';
import { ProxyopsError } from '../../core/errors.js';
import {
  checkDirectives,
  markNotAllowed,
  topLevelContext,
  type SnippetContext,
} from '../../core/nginx-config/check-directives.js';
import { nginxSyntaxError } from '../../core/nginx-config/nginx-config-error.js';
import { MAX_BLOCK_DEPTH, parseNginxConfig, tooDeep } from '../../core/nginx-config/parse-nginx-config.js';
import type { NginxConfig, NginxDirective } from '../../core/nginx-config/types.js';
import { NGINX_CONF_DIR, pathInCopy } from '../../core/nginx-config/conf-dir.js';
import { describeErrno } from '../describe-path.js';
import { readInputFile } from '../logs/read-input-file.js';
import { splitNginxDump } from '../../core/nginx-config/split-nginx-dump.js';
import { GLOB_CHARS, globPath, globSegment } from '../../core/nginx-config/glob-path.js';
import { walkLinks } from '../../core/nginx-config/walk-links.js';

/** Why an include of a dump names no file: nginx -T dumps every file it read. */
const NOT_IN_DUMP = 'not in the nginx -T output being linted';

/**
 * Reads an nginx main (or snippet) file and every file its `include` directives name, the way
 * nginx does: relative paths resolve against the conf prefix (by default the main file's
 * directory, as for `nginx -c`; give /etc/nginx when linting a snippet from a subdirectory),
 * globs match in sorted order and may match nothing, a plain path must exist. The output of
 * `nginx -T` is read as the files it dumps (the first is the main file; includes name the others).
 * Directives are then checked as `nginx -t` checks them (context, block, argument count).
 * Throws NGINX_CONFIG_UNREADABLE or NGINX_CONFIG_INVALID, both naming file:line.
 */
export async function readNginxConfig(
  mainPath: string,
  options: {
    confPrefix?: string;
    /**
     * false to skip the nginx -t checks: for the config a running nginx has already accepted, which
     * may be a newer nginx's than the 1.22 the checks follow.
     */
    checkDirectives?: boolean;
    /**
     * true when the config may be a copy of a host's /etc/nginx (lint): unless its main file is
     * under /etc/nginx itself, paths under /etc/nginx/ (in includes, in symlink targets) are read
     * under the conf prefix, never from this machine's /etc/nginx. A dump names what nginx read.
     */
    copy?: boolean;
    /** The context the main file's top level is read in, when it is a snippet (lint's --context). */
    context?: SnippetContext;
    /**
     * 'keep' leaves an include of a file that does not exist in the tree, marked `missing`, and
     * reads on (lint reports it); by default it is an error, as for nginx.
     */
    missingIncludes?: 'fail' | 'keep';
    /**
     * 'keep' leaves a directive nginx refuses in its context ("not allowed here") in the tree,
     * marked `notAllowedIn`, and reads on (lint reports it); by default it is an error, as for nginx.
     */
    notAllowed?: 'fail' | 'keep';
    /** The main file's text when it is at hand (the output of `nginx -T`), read instead of `mainPath`. */
    text?: string;
  } = {},
): Promise<NginxConfig> {
  const named = resolve(mainPath);
  const mainText = options.text ?? (await readInputFile(named, unreadableError(named))).toString('utf8');
  // `nginx -T > dump.conf`: the files are read from the dump, under the paths nginx read them from.
  const dump = splitNginxDump(mainText);
  const mainFile = dump ? ([...dump.keys()][0] as string) : named;
  const confPrefix = resolve(options.confPrefix ?? dirname(mainFile));
  const files: string[] = [];
  const remap =
    options.copy && !dump && !mainFile.startsWith(NGINX_CONF_DIR)
      ? (path: string) => pathInCopy(path, confPrefix)
      : undefined;
  const inCopy = remap ?? ((path: string) => path);

  async function readText(file: string, from?: NginxDirective): Promise<string> {
    const unreadable = unreadableError(file, from);
    if (dump) {
      const text = dump.get(file);
      if (text === undefined) throw unreadable(NOT_IN_DUMP);
      return text;
    }
    return (await readInputFile(file, unreadable)).toString('utf8');
  }

  async function load(
    file: string,
    chain: string[],
    depth: number,
    from?: NginxDirective,
  ): Promise<NginxDirective[]> {
    if (chain.includes(file))
      throw nginxSyntaxError(
        from?.file ?? file,
        from?.line ?? 0,
        `include cycle: ${[...chain, file].join(' -> ')}`,
      );
    const text = file === named && !dump ? mainText : await readText(file, from);
    if (!files.includes(file)) files.push(file);
    return expand(parseNginxConfig(text, file), [...chain, file], depth);
  }

  // Each file is parsed within MAX_BLOCK_DEPTH, but includes inside blocks stack their depths.
  async function expand(nodes: NginxDirective[], chain: string[], depth: number): Promise<NginxDirective[]> {
    const out: NginxDirective[] = [];
    for (const node of nodes) {
      // An include with a wrong argument count stays in the tree: checkDirectives refuses it in
      // reading order, after any earlier directive's error, as nginx does.
      if (node.name === 'include' && !node.children && !node.entries && node.args.length === 1) {
        const pattern = node.args[0] as string;
        const absolute = isAbsolute(pattern) ? inCopy(pattern) : join(confPrefix, pattern);
        const matched = !GLOB_CHARS.test(pattern)
          ? [absolute]
          : dump
            ? [...dump.keys()].filter((path) => globPath(absolute).test(path)).sort()
            : await expandGlob(absolute, remap);
        for (const file of matched) {
          const found = dump
            ? { path: file, missing: dump.has(file) ? undefined : NOT_IN_DUMP }
            : await locate(file, remap);
          if (found.missing && options.missingIncludes === 'keep')
            out.push({ ...node, missing: found.missing });
          else if (found.missing && found.dangling) throw danglingLink(file, node, found.missing);
          else out.push(...(await load(found.path, chain, depth, node)));
        }
        continue;
      }
      const copy: NginxDirective = { ...node };
      if ((node.children || node.entries) && depth + 1 > MAX_BLOCK_DEPTH)
        throw tooDeep(node.file, node.line, node.name);
      if (node.children) copy.children = await expand(node.children, chain, depth + 1);
      if (node.entries) copy.entries = await expand(node.entries, chain, depth + 1);
      out.push(copy);
    }
    return out;
  }

  const loaded = await load(mainFile, [], 0);
  if (options.checkDirectives === false) return { mainFile, files, directives: loaded };
  // Contexts are known only once includes are in place (a snippet may sit in any block).
  const context = options.context ?? topLevelContext(loaded, mainFile);
  const directives = options.notAllowed === 'keep' ? markNotAllowed(loaded, context) : loaded;
  const invalid = checkDirectives(directives, context);
  if (invalid) throw invalid;
  return { mainFile, files, directives, context };
}

/** The error for a config file that cannot be read, naming the include that named it. */
function unreadableError(file: string, from?: NginxDirective) {
  const where = from ? `${from.file}:${from.line}: include ` : '';
  return (reason: string, cause?: unknown) =>
    new ProxyopsError('NGINX_CONFIG_UNREADABLE', `${where}cannot read ${file}: ${reason}`, {
      cause,
      details: { file: from?.file ?? file, line: from?.line },
    });
}

/**
 * An include naming a link whose file is not there. nginx's glob lists the link and then fails to
 * open it (`open() "…" failed (2: No such file or directory)`), so `nginx -t` and a reload fail on
 * the tree as it is: refused here with the same cause, naming the link and the ways out.
 */
function danglingLink(file: string, from: NginxDirective, reason: string): ProxyopsError {
  return unreadableError(
    file,
    from,
  )(
    `${reason}; nginx -t fails on it too (open() failed): put the file it names in place, or remove the link (rm ${file}) until it is there`,
  );
}

/**
 * The path to read for a file an include names, and why it cannot be found (ENOENT, ENOTDIR, a
 * loop of links), naming each symlink on the way: a wildcard's match that is a dangling link is
 * otherwise unnamed. Without `remap` (the config is read where it stands) the kernel decides, by
 * stat(2); the links are walked only to name them in a failure. With `remap` (a copy of a host's
 * /etc/nginx) every component is resolved here, as the kernel would, except that an absolute link
 * target under /etc/nginx, of a file or of a directory on the way, is read in the copy: this
 * machine's /etc/nginx is never reached. The path is the file itself unless a link was remapped.
 */
async function locate(
  file: string,
  remap: ((path: string) => string) | undefined,
): Promise<{ path: string; missing?: string; dangling?: true }> {
  if (!remap) {
    const error = await stat(file).then(
      () => undefined,
      (failure: NodeJS.ErrnoException) => failure,
    );
    if (!error || (error.code !== 'ENOENT' && error.code !== 'ENOTDIR')) return { path: file };
    const { links } = await walkLinks(file, readLinkAt);
    return {
      path: file,
      missing: missingReason(links, error),
      ...(links.length > 0 ? { dangling: true } : {}),
    };
  }
  const walked = await walkLinks(file, readLinkAt, remap);
  if (walked.error)
    return {
      path: file,
      missing: missingReason(walked.links, walked.error),
      ...(walked.links.length > 0 ? { dangling: true } : {}),
    };
  return { path: walked.moved ? walked.path : file };
}

/** Why a file is not found: the system's words, after the links that led there. */
function missingReason(links: string[], error: NodeJS.ErrnoException): string {
  const reason = describeErrno(error);
  if (links.length === 0) return reason;
  if (error.code === 'ELOOP') return `${links.join(', ')}, a loop (${reason})`;
  return `${links.join(', ')}, which does not exist (${reason})`;
}

/** The target of `path` when it is a symlink; rejects with lstat's error when it cannot be looked at. */
async function readLinkAt(path: string): Promise<string | undefined> {
  return (await lstat(path)).isSymbolicLink() ? readlink(path) : undefined;
}

/** Paths matching a glob whose wildcards (`*`, `?`, `[...]`) may sit in any segment, sorted like glob(3). */
async function expandGlob(pattern: string, remap?: (path: string) => string): Promise<string[]> {
  // In a copy, a directory on the way may be a link into /etc/nginx: list the copy's, not this host's.
  const list = async (base: string) => {
    const walked = remap ? await walkLinks(base, readLinkAt, remap) : { path: base };
    return 'error' in walked && walked.error ? [] : readdir(walked.path).catch(() => [] as string[]);
  };
  const segments = pattern.split(sep).filter(Boolean);
  let bases: string[] = [sep];
  for (const segment of segments) {
    if (!GLOB_CHARS.test(segment)) {
      bases = bases.map((base) => join(base, segment));
      continue;
    }
    const matcher = globSegment(segment);
    const next: string[] = [];
    for (const base of bases) {
      const names = await list(base);
      for (const name of names.sort()) if (matcher.test(name)) next.push(join(base, name));
    }
    bases = next;
  }
  return bases;
}
