import {
  buildSchema,
  GraphQLScalarType,
  isObjectType,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from 'graphql';
import { TYPE_DEFS } from './type-defs.js';
import { MUTATION_RESOLVERS } from './resolvers/mutation.js';
import { OBJECT_RESOLVERS } from './resolvers/objects.js';
import { QUERY_RESOLVERS } from './resolvers/query.js';
import { SUBSCRIPTION_RESOLVERS } from './resolvers/subscription.js';

type FieldResolvers = Record<
  string,
  | GraphQLFieldResolver<never, never>
  | { subscribe: GraphQLFieldResolver<never, never>; resolve: GraphQLFieldResolver<never, never> }
>;

const RESOLVERS: Record<string, FieldResolvers> = {
  Query: QUERY_RESOLVERS as unknown as FieldResolvers,
  Mutation: MUTATION_RESOLVERS as unknown as FieldResolvers,
  Subscription: SUBSCRIPTION_RESOLVERS as unknown as FieldResolvers,
  ...(OBJECT_RESOLVERS as unknown as Record<string, FieldResolvers>),
};

/** JSON values pass through as they are (profile and settings are already checked flat maps). */
const JSON_SCALAR = new GraphQLScalarType({
  name: 'JSON',
  serialize: (value) => value,
  parseValue: (value) => value,
});

let built: GraphQLSchema | undefined;

/** The executable schema: the SDL with the resolvers attached (built once per process). */
export function createGraphqlSchema(): GraphQLSchema {
  if (built) return built;
  const schema = buildSchema(TYPE_DEFS);
  for (const [typeName, fields] of Object.entries(RESOLVERS)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) throw new Error(`resolvers name unknown type ${typeName}`);
    const typeFields = type.getFields();
    for (const [fieldName, resolver] of Object.entries(fields)) {
      const field = typeFields[fieldName];
      if (!field) throw new Error(`resolvers name unknown field ${typeName}.${fieldName}`);
      if (typeof resolver === 'function') field.resolve = resolver as GraphQLFieldResolver<unknown, unknown>;
      else {
        field.subscribe = resolver.subscribe as GraphQLFieldResolver<unknown, unknown>;
        field.resolve = resolver.resolve as GraphQLFieldResolver<unknown, unknown>;
      }
    }
  }
  const scalar = schema.getType('JSON') as GraphQLScalarType;
  Object.assign(scalar, { serialize: JSON_SCALAR.serialize, parseValue: JSON_SCALAR.parseValue });
  built = schema;
  return schema;
}
