import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import fc, { type Arbitrary } from 'fast-check';
import { send, type TestResponse } from './http-client.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/**
 * A small property-based contract runner, in the manner of schemathesis `--checks all`, driven by
 * the API's own OpenAPI document: fast-check generates requests from each operation's parameter and
 * body schemas (valid ones, and ones made invalid on purpose), sends them over real HTTP and checks
 * every response against the document.
 */

/* eslint-disable @typescript-eslint/no-explicit-any */
type Schema = Record<string, any>;
type Doc = Record<string, any>;

/** One generated request and the mode it was generated in. */
export interface FuzzCase {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: unknown;
  /** `positive`: every part valid per the document; `negative`: one part deliberately not. */
  mode: 'positive' | 'negative';
  token: string;
  /** For a negative case: the refusal the broken part earns, where the server reads that part. */
  refusal?: Refusal;
}

/** A refusal as the API documents it: the status, and the problem code (REST) or GraphQL error code. */
export interface Refusal {
  status: number;
  code: string;
}

const BAD_PARAMETER: Refusal = { status: 400, code: 'BAD_PARAMETER' };
const VALIDATION_FAILED: Refusal = { status: 422, code: 'VALIDATION_FAILED' };
const KEY_INVALID: Refusal = { status: 400, code: 'IDEMPOTENCY_KEY_INVALID' };
const GRAPHQL_BAD_REQUEST: Refusal = { status: 400, code: 'BAD_REQUEST' };

/** What the runner needs besides the document: where to send, which tokens, which ids exist. */
export interface FuzzTarget {
  url: string;
  /** Named tokens, `none` included as `''`: each case picks one. */
  tokens: Record<string, string>;
  /** Values worth trying for each path parameter besides random ones (ids that exist). */
  pathValues: Record<string, () => string[]>;
}

/** A failed check, with the request that caused it. */
export interface FuzzFailure {
  check: string;
  message: string;
  request: string;
}

const MEDIA_JSON = 'application/json';

function resolve(doc: Doc, schema: Schema): Schema {
  let current = schema;
  while (typeof current.$ref === 'string') {
    const parts = (current.$ref as string).replace(/^#\//, '').split('/');
    current = parts.reduce<any>((node, part) => node[part.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
  }
  return current;
}

const JSON_SCALAR = fc.oneof(fc.string({ maxLength: 8 }), fc.integer(), fc.boolean(), fc.constant(null));

/** A fast-check arbitrary of the values `schema` accepts (the subset of JSON Schema the API uses). */
export function valuesOf(doc: Doc, input: Schema): Arbitrary<unknown> {
  const schema = resolve(doc, input);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...(schema.enum as unknown[]));
  if (Array.isArray(schema.oneOf))
    return fc.oneof(...(schema.oneOf as Schema[]).map((s) => valuesOf(doc, s)));
  if (Array.isArray(schema.type))
    return fc.oneof(...(schema.type as string[]).map((type) => valuesOf(doc, { ...schema, type })));
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
      return fc.integer({ min: schema.minimum ?? -1_000_000, max: schema.maximum ?? 1_000_000 });
    case 'number': {
      const step = schema.multipleOf ?? 0.5;
      const min = Math.ceil((schema.minimum ?? -1_000_000) / step);
      const max = Math.floor((schema.maximum ?? 1_000_000) / step);
      return fc.integer({ min, max }).map((n) => Number((n * step).toFixed(6)));
    }
    case 'string':
      return stringsOf(schema);
    case 'array':
      return fc.array(valuesOf(doc, schema.items ?? {}), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object':
      return objectsOf(doc, schema);
    default:
      return JSON_SCALAR;
  }
}

function stringsOf(schema: Schema): Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? 64;
  if (schema.format === 'uuid') return fc.uuid();
  const base =
    typeof schema.pattern === 'string'
      ? fc.stringMatching(new RegExp(schema.pattern))
      : fc.string({ minLength: min, maxLength: Math.min(max, 64), unit: 'grapheme' });
  return base.filter((text) => text.length >= min && text.length <= max);
}

function objectsOf(doc: Doc, schema: Schema): Arbitrary<unknown> {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set<string>(schema.required ?? []);
  const names = Object.keys(properties);
  if (names.length === 0) {
    const values = schema.additionalProperties ? valuesOf(doc, schema.additionalProperties) : JSON_SCALAR;
    const keys = schema.propertyNames?.pattern
      ? fc.stringMatching(new RegExp(schema.propertyNames.pattern))
      : fc.string({ maxLength: 8 });
    return fc.dictionary(keys, values, { maxKeys: Math.min(schema.maxProperties ?? 3, 3) });
  }
  const record = fc.record(
    Object.fromEntries(names.map((name) => [name, valuesOf(doc, properties[name]!)])),
    {
      requiredKeys: names.filter((name) => required.has(name)),
    },
  );
  return record.filter((value) => Object.keys(value).length >= (schema.minProperties ?? 0));
}

/** The JSON types a schema takes, through `oneOf` and `$ref`. */
function typesOf(doc: Doc, input: Schema): string[] {
  const schema = resolve(doc, input);
  if (Array.isArray(schema.oneOf)) return (schema.oneOf as Schema[]).flatMap((s) => typesOf(doc, s));
  if (Array.isArray(schema.enum)) return ['string'];
  return Array.isArray(schema.type) ? schema.type : [schema.type];
}

/** A value of a JSON type `schema` does not take. */
function wrongTypeFor(doc: Doc, schema: Schema): unknown {
  const types = typesOf(doc, schema);
  return types.includes('object') || types.includes('array') ? 'not-an-object' : { not: 'a scalar' };
}

/** One operation of the document, flattened. */
interface Operation {
  method: string;
  path: string;
  op: Schema;
}

export function operationsOf(doc: Doc): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, Schema>>).flatMap(([path, item]) =>
    Object.entries(item).map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );
}

/**
 * Idempotency keys of the header's pattern, bare and quoted, one per case: a key used again for
 * another request meets the documented 422 of a reuse, and each case is then about its own data.
 * (The pattern against the server's parser is its own test, with keys from the whole pattern.)
 */
function freshKeys(operation: Operation, schema: Schema): Arbitrary<string> {
  const pattern = new RegExp(schema.pattern as string);
  const id = String(operation.op.operationId ?? operation.path).replace(/[^A-Za-z0-9]/g, '');
  return fc
    .tuple(fc.uuid(), fc.boolean())
    .map(([uuid, quoted]) => (quoted ? `"${id}-${uuid}"` : `${id}-${uuid}`))
    .filter((key) => pattern.test(key));
}

/** A parameter's values as query text: its schema's, or JSON text of its `content` schema. */
function parameterValues(doc: Doc, param: Schema): Arbitrary<string> {
  const json = param.content?.[MEDIA_JSON]?.schema as Schema | undefined;
  return json ? valuesOf(doc, json).map((v) => JSON.stringify(v)) : valuesOf(doc, param.schema).map(String);
}

/** Generates requests for one operation, valid or (with `mode: 'negative'`) invalid in one part. */
export function casesOf(doc: Doc, operation: Operation, target: FuzzTarget): Arbitrary<FuzzCase> {
  const params = (operation.op.parameters ?? []) as Schema[];
  const pathParams = params.filter((p) => p.in === 'path');
  const queryParams = params.filter((p) => p.in === 'query');
  const headerParams = params.filter((p) => p.in === 'header');
  const pathArb = fc.record<Record<string, string>>(
    Object.fromEntries(
      pathParams.map((p) => {
        const known = target.pathValues[p.name]?.() ?? [];
        return [p.name, known.length ? fc.oneof(fc.constantFrom(...known), fc.uuid()) : fc.uuid()];
      }),
    ),
  );
  const queryModel: Record<string, Arbitrary<string>> = Object.fromEntries(
    queryParams.map((p) => [p.name as string, parameterValues(doc, p)]),
  );
  const queryArb = fc.record(queryModel, {
    requiredKeys: queryParams.filter((p) => p.required).map((p) => p.name as string),
  });
  // A header with a pattern is generated from it, as a fuzzer does; If-Match from tags that may be current.
  const headerArb = fc.record(
    Object.fromEntries(
      headerParams.map((p) => [
        p.name,
        p.name === 'Idempotency-Key'
          ? freshKeys(operation, p.schema)
          : typeof p.schema?.pattern === 'string'
            ? stringsOf(p.schema)
            : fc.oneof(
                fc.constant('*'),
                fc.nat(5).map((v) => `"v${v}"`),
              ),
      ]),
    ),
    { requiredKeys: [] },
  );
  const bodySchema = operation.op.requestBody?.content?.[MEDIA_JSON]?.schema as Schema | undefined;
  const bodyArb = bodySchema ? valuesOf(doc, bodySchema) : fc.constant(undefined);
  const tokenArb = fc.constantFrom(...Object.keys(target.tokens));
  return fc
    .record({
      path: pathArb,
      query: queryArb,
      headers: headerArb,
      body: bodyArb,
      token: tokenArb,
      negative: fc.boolean(),
      mutation: fc.nat(),
    })
    .map(({ path, query, headers, body, token, negative, mutation }) => {
      const built: FuzzCase = {
        method: operation.method,
        path: operation.path.replace(/\{([a-z_]+)\}/g, (_m, name: string) => encodeURIComponent(path[name]!)),
        query: query as Record<string, string>,
        headers: headers as Record<string, string>,
        ...(body === undefined ? {} : { body }),
        mode: 'positive',
        token,
      };
      return negative ? (invalidate(doc, operation, built, mutation) ?? built) : built;
    });
}

/**
 * Makes one part of a valid case invalid, and says how the API documents refusing it: an unknown or
 * malformed query parameter, a missing required one, a header off its pattern, or a bad body.
 */
function invalidate(doc: Doc, operation: Operation, valid: FuzzCase, choice: number): FuzzCase | undefined {
  const params = (operation.op.parameters ?? []) as Schema[];
  const queryParams = params.filter((p) => p.in === 'query');
  const bodySchema = operation.op.requestBody?.content?.[MEDIA_JSON]?.schema as Schema | undefined;
  const graphql = operation.path.startsWith('/graphql');
  const options: Array<() => FuzzCase> = [];
  const broken = (refusal: Refusal, change: Partial<FuzzCase>) => () => ({ ...valid, ...change, refusal });
  // Resource operations refuse unknown query parameters; probes and /graphql ignore them.
  const tags = (operation.op.tags ?? []) as string[];
  if (tags.includes('users') || tags.includes('orders'))
    options.push(broken(BAD_PARAMETER, { query: { ...valid.query, unknownParameter: 'x' } }));
  const typed = queryParams.filter(
    (p) => p.content || p.schema.type === 'integer' || p.schema.enum || p.schema.pattern,
  );
  for (const param of typed)
    options.push(
      broken(graphql ? GRAPHQL_BAD_REQUEST : BAD_PARAMETER, {
        query: { ...valid.query, [param.name]: '\u0007bad' },
      }),
    );
  for (const param of queryParams.filter((p) => p.required)) {
    const { [param.name as string]: _dropped, ...rest } = valid.query;
    options.push(broken(graphql ? GRAPHQL_BAD_REQUEST : BAD_PARAMETER, { query: rest }));
  }
  for (const param of params.filter((p) => p.in === 'header' && typeof p.schema?.pattern === 'string'))
    for (const value of ['x,y', '_ t', '""'])
      options.push(
        broken(KEY_INVALID, {
          headers: { ...valid.headers, [param.name]: value },
        }),
      );
  if (bodySchema && valid.body && typeof valid.body === 'object' && !Array.isArray(valid.body) && !graphql) {
    const schema = resolve(doc, bodySchema);
    const body = valid.body as Record<string, unknown>;
    if (schema.additionalProperties === false)
      options.push(broken(VALIDATION_FAILED, { body: { ...body, unknownField: 1 } }));
    for (const name of schema.required ?? []) {
      const { [name]: _dropped, ...rest } = body;
      options.push(broken(VALIDATION_FAILED, { body: rest }));
    }
    for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Schema>))
      options.push(broken(VALIDATION_FAILED, { body: { ...body, [name]: wrongTypeFor(doc, property) } }));
  }
  if (options.length === 0) return undefined;
  return { ...options[choice % options.length]!(), mode: 'negative' };
}

/** Response checks: compiled once per document. */
export function createChecker(doc: Doc) {
  const ajv = addFormats(new Ajv({ strict: false, allErrors: true }));
  ajv.addSchema(doc, 'openapi');
  const validators = new Map<string, ValidateFunction>();
  const pointer = (...parts: string[]) =>
    parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
  const validatorFor = (path: string, method: string, status: string, media: string) => {
    const ref = `openapi#/${pointer('paths', path, method.toLowerCase(), 'responses', status, 'content', media, 'schema')}`;
    let validate = validators.get(ref);
    if (!validate) {
      validate = ajv.compile({ $ref: ref });
      validators.set(ref, validate);
    }
    return validate;
  };

  /** Every failed check of one response to `request`. */
  return function check(operation: Operation, request: FuzzCase, res: TestResponse): FuzzFailure[] {
    const failures: FuzzFailure[] = [];
    const fail = (check: string, message: string) =>
      failures.push({
        check,
        message,
        request: describeCase(request) + ` -> ${res.status} ${res.text.slice(0, 300)}`,
      });
    const responses = operation.op.responses as Record<string, Schema>;
    const status = String(res.status);
    if (res.status >= 500) fail('not_a_server_error', `answered ${res.status}`);
    const documented = responses[status];
    if (!documented) {
      fail('status_code_conformance', `${status} is not documented (${Object.keys(responses).join(', ')})`);
      return failures;
    }
    const isRest = !operation.path.startsWith('/graphql');
    if (request.mode === 'positive' && isRest && [400, 406, 415].includes(res.status))
      fail('positive_data_acceptance', `a request valid per the document was refused as malformed`);
    if (request.mode === 'negative' && (res.status < 400 || res.status >= 500))
      fail('negative_data_rejection', `a request invalid per the document was answered ${res.status}`);
    // Refused as malformed or invalid: then as documented for the part that was broken. (Other 4xx,
    // such as 401 before the token or 404 for an id, come before the part is read.)
    const refusedCode = refusalCode(res);
    if (
      request.refusal &&
      [400, 422].includes(res.status) &&
      (res.status !== request.refusal.status || refusedCode !== request.refusal.code)
    )
      fail(
        'negative_data_refusal',
        `answered ${res.status} ${refusedCode ?? ''}, documented ${request.refusal.status} ${request.refusal.code}`,
      );
    const content = documented.content as Record<string, Schema> | undefined;
    if (!content) {
      if (res.text !== '' && request.method !== 'HEAD')
        fail('content_type_conformance', 'a body where none is documented');
      return failures;
    }
    const media = String(res.headers['content-type'] ?? '')
      .split(';')[0]!
      .trim();
    if (!content[media]) {
      fail(
        'content_type_conformance',
        `${media || 'no Content-Type'} is not documented (${Object.keys(content).join(', ')})`,
      );
      return failures;
    }
    let body: any;
    try {
      body = JSON.parse(res.text);
    } catch {
      fail('response_schema_conformance', 'the body is not JSON');
      return failures;
    }
    const validate = validatorFor(operation.path, operation.method, status, media);
    if (!validate(body)) fail('response_schema_conformance', ajv.errorsText(validate.errors));
    if (res.status >= 400 && isRest && (media !== 'application/problem+json' || body.status !== res.status))
      fail('problem_body', 'an error is not a problem document with its own status');
    if (res.status >= 400 && !isRest && !(Array.isArray(body.errors) && body.errors.length > 0))
      fail('problem_body', 'a GraphQL refusal without errors');
    return failures;
  };
}

/** The problem code of a REST refusal (checked against its `type`), or the first GraphQL error code. */
export function refusalCode(res: TestResponse): string | undefined {
  try {
    const body = JSON.parse(res.text) as {
      type?: string;
      code?: string;
      errors?: Array<{ extensions?: { code?: string } }>;
    };
    if (body.code !== undefined)
      return body.type === `urn:proxyops:problem:${body.code.toLowerCase().replace(/_/g, '-')}`
        ? body.code
        : `${body.code} (type ${body.type})`;
    return body.errors?.[0]?.extensions?.code;
  } catch {
    return undefined;
  }
}

export function describeCase(request: FuzzCase): string {
  const query = new URLSearchParams(request.query).toString();
  const headers = Object.entries(request.headers)
    .map(([name, value]) => ` ${name}: ${value}`)
    .join('');
  return `${request.mode} ${request.method} ${request.path}${query ? `?${query}` : ''} token=${request.token || 'none'}${headers}${
    request.body === undefined ? '' : ` body=${JSON.stringify(request.body).slice(0, 300)}`
  }`;
}

/** Sends one case over real HTTP. */
export function sendCase(target: FuzzTarget, request: FuzzCase): Promise<TestResponse> {
  const query = new URLSearchParams(request.query).toString();
  const token = target.tokens[request.token];
  const graphql = request.path.startsWith('/graphql');
  return send(`${target.url}${request.path}${query ? `?${query}` : ''}`, {
    method: request.method,
    headers: {
      accept: graphql ? 'application/graphql-response+json, application/json' : MEDIA_JSON,
      ...request.headers,
      ...(request.body === undefined ? {} : { 'content-type': MEDIA_JSON }),
    },
    ...(request.body === undefined ? {} : { body: JSON.stringify(request.body) }),
    ...(token ? { token } : {}),
  });
}
