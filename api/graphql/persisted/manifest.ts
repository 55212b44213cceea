import {
  Kind,
  parse,
  print,
  validate,
  visit,
  type DefinitionNode,
  type FragmentDefinitionNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { ProxyopsError } from '../../../proxy-config/core/errors.js';
import { sha256Hex } from './persisted-queries.js';

/** One operation of the manifest: `id` is the SHA-256 of `body`, the exact text a client sends. */
export interface ManifestOperation {
  id: string;
  name: string;
  type: 'query' | 'mutation' | 'subscription';
  body: string;
}

/** The allow-list manifest (the common persisted-query manifest format). */
export interface Manifest {
  format: 'apollo-persisted-query-manifest';
  version: 1;
  operations: ManifestOperation[];
}

/** One `.graphql` source file. */
export interface SourceFile {
  path: string;
  text: string;
}

function usedFragments(
  operation: OperationDefinitionNode,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
): FragmentDefinitionNode[] {
  const found = new Map<string, FragmentDefinitionNode>();
  const pending: DefinitionNode[] = [operation];
  while (pending.length > 0) {
    visit(pending.pop() as DefinitionNode, {
      FragmentSpread(node) {
        const fragment = fragments.get(node.name.value);
        if (fragment && !found.has(node.name.value)) {
          found.set(node.name.value, fragment);
          pending.push(fragment);
        }
      },
    });
  }
  return [...found.values()].sort((a, b) => a.name.value.localeCompare(b.name.value));
}

/**
 * Builds the manifest of every named operation in `files`: each body is the printed operation
 * followed by the fragments it uses, validated against `schema`. A file that does not parse or
 * validate, an anonymous or a duplicate operation name is USAGE (exit 2) naming file and line.
 */
export function buildManifest(files: readonly SourceFile[], schema: GraphQLSchema): Manifest {
  const operations: Array<{ node: OperationDefinitionNode; path: string }> = [];
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const file of files) {
    let document;
    try {
      document = parse(file.text);
    } catch (error) {
      const line = (error as { locations?: Array<{ line: number }> }).locations?.[0]?.line ?? 1;
      throw new ProxyopsError('USAGE', `${file.path}:${line}: ${(error as Error).message}`, {
        cause: error,
      });
    }
    for (const definition of document.definitions) {
      const line = definition.loc?.startToken.line ?? 1;
      if (definition.kind === Kind.FRAGMENT_DEFINITION) {
        if (fragments.has(definition.name.value))
          throw new ProxyopsError(
            'USAGE',
            `${file.path}:${line}: fragment ${definition.name.value} is defined twice`,
          );
        fragments.set(definition.name.value, definition);
      } else if (definition.kind === Kind.OPERATION_DEFINITION) {
        if (!definition.name)
          throw new ProxyopsError('USAGE', `${file.path}:${line}: every operation needs a name`);
        operations.push({ node: definition, path: file.path });
      }
    }
  }
  const names = new Set<string>();
  const result: ManifestOperation[] = [];
  for (const { node, path } of operations) {
    const name = node.name?.value ?? '';
    const line = node.loc?.startToken.line ?? 1;
    if (names.has(name))
      throw new ProxyopsError('USAGE', `${path}:${line}: operation ${name} is defined twice`);
    names.add(name);
    const body = [node, ...usedFragments(node, fragments)].map((d) => print(d)).join('\n\n');
    const errors = validate(schema, parse(body));
    if (errors.length > 0)
      throw new ProxyopsError('USAGE', `${path}:${line}: operation ${name}: ${errors[0]?.message}`);
    result.push({ id: sha256Hex(body), name, type: node.operation, body });
  }
  result.sort((a, b) => a.name.localeCompare(b.name));
  return { format: 'apollo-persisted-query-manifest', version: 1, operations: result };
}

/** The hash -> text map of a manifest, after checking that every id is the hash of its body. */
export function toAllowList(manifest: unknown, source: string): Map<string, string> {
  const operations = (manifest as { operations?: unknown } | null)?.operations;
  if (!Array.isArray(operations))
    throw new ProxyopsError('BAD_OPTION', `${source} is not a persisted-query manifest (no operations)`);
  const allowList = new Map<string, string>();
  for (const [index, operation] of operations.entries()) {
    const { id, body } = (operation ?? {}) as { id?: unknown; body?: unknown };
    if (typeof body !== 'string' || typeof id !== 'string' || sha256Hex(body) !== id)
      throw new ProxyopsError(
        'BAD_OPTION',
        `${source}: operation ${index} has no body, or its id is not the SHA-256 of its body`,
      );
    allowList.set(id, body);
  }
  return allowList;
}
