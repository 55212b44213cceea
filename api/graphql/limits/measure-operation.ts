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

/**
 * Measures depth and cost of `operation` by walking its selections with their schema types,
 * following fragments (each spread at most once per path, so a cycle cannot loop). Introspection
 * fields (`__schema`, `__typename`) count for nothing: they touch no data.
 */
export function measureOperation(input: MeasureInput): OperationSize {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of input.document.definitions)
    if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);

  const walk = (
    selectionSet: SelectionSetNode,
    parent: GraphQLNamedType | undefined,
    path: ReadonlySet<string>,
  ): { depth: number; cost: number } => {
    let depth = 0;
    let cost = 0;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        if (selection.name.value.startsWith('__')) continue;
        const fields = isObjectType(parent) || isInterfaceType(parent) ? parent.getFields() : {};
        const definition = fields[selection.name.value];
        const child = selection.selectionSet
          ? walk(selection.selectionSet, definition ? getNamedType(definition.type) : undefined, path)
          : { depth: 0, cost: 0 };
        const isList = definition ? isListType(getNullableType(definition.type)) : false;
        const multiplier = isList ? (countArgument(selection, input.variables) ?? input.defaultListSize) : 1;
        cost += 1 + Math.max(0, multiplier) * child.cost;
        depth = Math.max(depth, 1 + child.depth);
        continue;
      }
      const fragment =
        selection.kind === Kind.INLINE_FRAGMENT ? selection : fragments.get(selection.name.value);
      if (!fragment) continue;
      if (selection.kind === Kind.FRAGMENT_SPREAD && path.has(selection.name.value)) continue;
      const nextPath =
        selection.kind === Kind.FRAGMENT_SPREAD ? new Set([...path, selection.name.value]) : path;
      const type = fragment.typeCondition
        ? (input.schema.getType(fragment.typeCondition.name.value) ?? undefined)
        : parent;
      const inner = walk(fragment.selectionSet, type, nextPath);
      cost += inner.cost;
      depth = Math.max(depth, inner.depth);
    }
    return { depth, cost };
  };

  const root = input.schema.getRootType(input.operation.operation) ?? undefined;
  const { depth, cost } = walk(input.operation.selectionSet, root, new Set());
  let aliases = 0;
  visit(input.document, {
    Field(node) {
      if (node.alias) aliases++;
    },
  });
  return { depth, cost, aliases };
}
