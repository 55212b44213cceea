import { dirname, isAbsolute, posix } from 'node:path';
import { serverKey } from '../deploy/compare-live-with-plan.js';
import { GLOB_CHARS, globPath } from '../nginx-config/glob-path.js';
import { parseNginxConfig } from '../nginx-config/parse-nginx-config.js';
import { ANNOTATION_PREFIX, type NginxDirective } from '../nginx-config/types.js';
import type { NginxTree } from './tree.js';

/**
 * Every file of the tree parsed on its own, not with its includes in place: an `include` inside an
 * upstream block stays visible, and each directive's line is a line of its own file's text.
 */
export type ParsedTree = ReadonlyMap<string, NginxDirective[]>;

export function parseTree(tree: NginxTree): ParsedTree {
  return new Map([...tree.files].map(([path, text]) => [path, parseNginxConfig(text, path)]));
}

/** Every directive of a parsed file, blocks before their bodies. */
export function allDirectives(nodes: readonly NginxDirective[]): NginxDirective[] {
  return nodes.flatMap((node) => [node, ...allDirectives(node.children ?? [])]);
}

/** A `server` line of an upstream, and the address it names compared as serverKey compares it. */
export interface ServerLine {
  directive: NginxDirective;
  key: string;
}

/** An `include` inside an upstream block and the files of the tree it names. */
export interface BlockInclude {
  directive: NginxDirective;
  files: string[];
}

/** Where an upstream of the spec is written in the tree. */
export interface LocatedUpstream {
  name: string;
  /** Every `upstream NAME { }` of the tree (more than one is refused). */
  definitions: NginxDirective[];
  includes: BlockInclude[];
  /** The `server` lines of the block and of the files it includes, in nginx's reading order. */
  servers: ServerLine[];
  /** Every other directive of the block and of the files it includes (`zone`, `state`, `keepalive`). */
  body: NginxDirective[];
}

/** The definitions of upstream `name` and, when there is one, what its block holds. */
export function locateUpstream(tree: NginxTree, parsed: ParsedTree, name: string): LocatedUpstream {
  const definitions = [...parsed.values()].flatMap((nodes) =>
    allDirectives(nodes).filter((d) => d.name === 'upstream' && d.children && d.args[0] === name),
  );
  const located: LocatedUpstream = { name, definitions, includes: [], servers: [], body: [] };
  const block = definitions.length === 1 ? definitions[0] : undefined;
  if (block) collect(block.children ?? [], new Set([block.file]));
  return located;

  function collect(nodes: readonly NginxDirective[], chain: ReadonlySet<string>): void {
    for (const node of nodes) {
      if (node.name.startsWith(ANNOTATION_PREFIX)) continue;
      if (node.name === 'include' && node.args.length === 1) {
        const files = includedFiles(tree, node.args[0] as string);
        located.includes.push({ directive: node, files });
        // A cycle is nginx's to refuse (`nginx -t`); here it only must not loop.
        for (const file of files.filter((f) => !chain.has(f)))
          collect(parsed.get(file) ?? [], new Set([...chain, file]));
      } else if (node.name === 'server' && !node.children && node.args[0] !== undefined)
        located.servers.push({ directive: node, key: serverKey(node.args[0]) });
      else located.body.push(node);
    }
  }
}

/** The files of the tree an include names, as nginx resolves it (relative to nginx.conf's directory). */
export function includedFiles(tree: NginxTree, pattern: string): string[] {
  const path = isAbsolute(pattern) ? pattern : posix.join(dirname(tree.conf), pattern);
  if (!GLOB_CHARS.test(pattern)) return tree.files.has(path) ? [path] : [];
  const glob = globPath(path);
  return [...tree.files.keys()].filter((file) => glob.test(file)).sort();
}

/** An address as an upstream `server` line writes it (IPv6 in brackets). */
export function writtenAddress(address: { host: string; port: number }): string {
  return `${address.host.includes(':') ? `[${address.host}]` : address.host}:${address.port}`;
}

/** The key of a spec server, comparable with a ServerLine's. */
export function specServerKey(server: { host: string; port: number; socket?: string }): string {
  return serverKey(server.socket === undefined ? writtenAddress(server) : `unix:${server.socket}`);
}
