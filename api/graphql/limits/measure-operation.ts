import {
  getNamedType,
  getNullableType,
  isListType,
  isObjectType,
  isInterfaceType,
  Kind,
  visit,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

/** How big one operation is, as the abuse limits see it. */
export interface OperationSize {
  /** Deepest field nesting (a top-level field is 1). */
  depth: number;
  /** 1 per field; a list field multiplies its children's cost by `first`/`last` (or the default). */
  cost: number;
  /** Aliased fields in the whole document. */
  aliases: number;
  /** Directives used in the whole document. */
  directives: number;
}

/** What the measure needs besides the document. */
export interface MeasureInput {
  schema: GraphQLSchema;
  document: DocumentNode;
  operation: OperationDefinitionNode;
  variables: Readonly<Record<string, unknown>>;
  /** Assumed size of a list field called without first/last. */
  defaultListSize: number;
}

function countArgument(field: FieldNode, variables: MeasureInput['variables']): number | undefined {
  for (const name of ['first', 'last']) {
    const argument = field.arguments?.find((a) => a.name.value === name);
    if (!argument) continue;
    const value = argument.value;
    if (value.kind === Kind.INT) return Number(value.value);
    if (value.kind === Kind.VARIABLE) {
      const given = variables[value.name.value];
      // Anything but a whole number (1e309 arrives as Infinity) fails coercion later; assume the default.
      if (Number.isSafeInteger(given)) return given as number;
    }
  }
  return undefined;
}

/** The fragment names spread anywhere inside a selection set (inline fragments looked into). */
function spreadsIn(selectionSet: SelectionSetNode, into: Set<string> = new Set()): Set<string> {
  for (const selection of selectionSet.selections) {
    if (selection.kind === Kind.FRAGMENT_SPREAD) into.add(selection.name.value);
    else if (selection.selectionSet) spreadsIn(selection.selectionSet, into);
  }
  return into;
}

/**
 * A fragment that spreads itself, directly or through others, as `A -> B -> A`; undefined when there
 * is none. Linear in the document: each fragment is finished once.
 */
export function findFragmentCycle(document: DocumentNode): string | undefined {
  const graph = new Map<string, Set<string>>();
  for (const definition of document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION)
      graph.set(definition.name.value, spreadsIn(definition.selectionSet));
  const done = new Set<string>();
  const onPath: string[] = [];
  const visitFragment = (name: string): string | undefined => {
    if (done.has(name) || !graph.has(name)) return undefined;
    const at = onPath.indexOf(name);
    if (at !== -1) return [...onPath.slice(at), name].join(' -> ');
    onPath.push(name);
    for (const next of graph.get(name)!) {
      const cycle = visitFragment(next);
      if (cycle) return cycle;
    }
    onPath.pop();
    done.add(name);
    return undefined;
  };
  for (const name of graph.keys()) {
    const cycle = visitFragment(name);
    if (cycle) return cycle;
  }
  return undefined;
}

/**
 * Measures depth and cost of `operation` by walking its selections with their schema types. A named
 * fragment is measured once and its result reused at every spread, so a document that spreads a
 * fragment twice per level (2^n expansions) costs n steps to measure, and its cost comes out as the
 * 2^n it would cost to run. The caller rejects fragment cycles first (findFragmentCycle). Introspection
 * fields (`__schema`, `__typename`) count for nothing: they touch no data.
 */
export function measureOperation(input: MeasureInput): OperationSize {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of input.document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const measured = new Map<string, { depth: number; cost: number }>();

  const walk = (
    selectionSet: SelectionSetNode,
    parent: GraphQLNamedType | undefined,
  ): { depth: number; cost: number } => {
    let depth = 0;
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        const fields = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields() : {};
        const definition = fields[selection.name.value];
        const child = selection.selectionSet
          ? walk(selection.selectionSet, definition ? getNamedType(definition.type) : undefined)
          : { depth: 0, cost: 0 };
        const isList = definition ? isListType(getNullableType(definition.type)) : false;
        const multiplier = isList ? (countArgument(selection, input.variables) ?? input.defaultListSize) : 1;
        cost += 1 + Math.max(0, multiplier) * child.cost;
        depth = Math.max(depth, 1 + child.depth);
        continue;
      }
      const inner =
        selection.kind === Kind.INLINE_FRAGMENT
          ? walk(
              selection.selectionSet,
              selection.typeCondition
                ? (input.schema.getType(selection.typeCondition.name.value) ?? undefined)
                : parent,
            )
          : measureFragment(selection.name.value);
      cost += inner.cost;
      depth = Math.max(depth, inner.depth);
    }
    return { depth, cost };
  };

  const measureFragment = (name: string): { depth: number; cost: number } => {
    const known = measured.get(name);
    if (known) return known;
    const fragment = fragments.get(name);
    // Marked before the walk: a cycle the caller did not reject counts for nothing instead of looping.
    measured.set(name, { depth: 0, cost: 0 });
    const result = fragment
      ? walk(fragment.selectionSet, input.schema.getType(fragment.typeCondition.name.value) ?? undefined)
      : { depth: 0, cost: 0 };
    measured.set(name, result);
    return result;
  };

  const root = input.schema.getRootType(input.operation.operation) ?? undefined;
  const { depth, cost } = walk(input.operation.selectionSet, root);
  let aliases = 0;
  let directives = 0;
  visit(input.document, {
    Field(node) {
      if (node.alias) aliases++;
    },
    Directive() {
      directives++;
    },
  });
  return { depth, cost, aliases, directives };
}
