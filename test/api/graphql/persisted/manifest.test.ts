import { describe, expect, it } from 'vitest';
import { buildManifest, toAllowList } from '../../../../api/graphql/persisted/manifest.js';
import { sha256Hex } from '../../../../api/graphql/persisted/persisted-queries.js';
import { createGraphqlSchema } from '../../../../api/graphql/schema.js';

const schema = createGraphqlSchema();

describe('buildManifest', () => {
  it('prints each named operation with the fragments it uses (from any file); id is the hash of the body', () => {
    const manifest = buildManifest(
      [
        {
          path: 'a.graphql',
          text: 'query Mine { me { ...Who } }\nmutation Cancel($id: ID!) { cancelOrder(id: $id) { id } }',
        },
        { path: 'frag.graphql', text: 'fragment Who on User { id name }\nfragment Unused on User { email }' },
      ],
      schema,
    );
    expect(manifest.format).toBe('apollo-persisted-query-manifest');
    expect(manifest.operations.map((o) => [o.name, o.type])).toEqual([
      ['Cancel', 'mutation'],
      ['Mine', 'query'],
    ]);
    const mine = manifest.operations[1];
    expect(mine?.body).toBe(
      'query Mine {\n  me {\n    ...Who\n  }\n}\n\nfragment Who on User {\n  id\n  name\n}',
    );
    expect(mine?.id).toBe(sha256Hex(mine?.body ?? ''));
  });

  it('names file and line for a syntax error, an anonymous or duplicate operation, a schema error', () => {
    expect(() => buildManifest([{ path: 'x.graphql', text: '\n\nquery {' }], schema)).toThrow(
      /^x\.graphql:3: Syntax Error/,
    );
    expect(() => buildManifest([{ path: 'x.graphql', text: '{ me { id } }' }], schema)).toThrow(
      /x\.graphql:1: every operation needs a name/,
    );
    expect(() =>
      buildManifest(
        [
          { path: 'a.graphql', text: 'query Q { me { id } }' },
          { path: 'b.graphql', text: '\nquery Q { me { id } }' },
        ],
        schema,
      ),
    ).toThrow(/b\.graphql:2: operation Q is defined twice/);
    expect(() => buildManifest([{ path: 'x.graphql', text: 'query Q { me { nope } }' }], schema)).toThrow(
      /Cannot query field "nope"/,
    );
  });
});

describe('toAllowList', () => {
  it('maps ids to bodies and refuses an id that is not the hash of its body', () => {
    expect(
      toAllowList({ operations: [{ id: sha256Hex('{ me { id } }'), body: '{ me { id } }' }] }, 'm.json'),
    ).toEqual(new Map([[sha256Hex('{ me { id } }'), '{ me { id } }']]));
    expect(() => toAllowList({ operations: [{ id: 'x', body: '{ me { id } }' }] }, 'm.json')).toThrow(
      /m\.json: operation 0/,
    );
    expect(() => toAllowList({}, 'm.json')).toThrow(/not a persisted-query manifest/);
  });
});
