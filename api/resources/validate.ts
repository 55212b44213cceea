import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import { ProxyopsError } from '../../proxy-config/core/errors.js';
import { findInvisibleCharacter } from './visible-text.js';

// ajv-formats is CommonJS; its default export arrives wrapped under NodeNext.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

/** One field-level problem, as listed in `errors[]` of a 422/400 problem body. */
export interface FieldError {
  /** JSON Pointer to the offending value (`/items/0/quantity`). */
  pointer: string;
  message: string;
}

const bodyAjv = addFormats(new Ajv({ allErrors: true, strict: true, multipleOfPrecision: 6 }));
// Query strings carry only text: coerce "20" to 20 before checking.
const queryAjv = addFormats(new Ajv({ allErrors: true, strict: true, coerceTypes: true, useDefaults: true }));

const compiled = new WeakMap<object, ValidateFunction>();

function compile(ajv: Ajv, schema: object): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    const id = (schema as { $id?: string }).$id;
    validate = (id && ajv.getSchema(id)) || ajv.compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

/** Turns ajv's errors into field errors: one per offending value, pointing at it. */
export function toFieldErrors(errors: readonly ErrorObject[] | null | undefined): FieldError[] {
  const seen = new Set<string>();
  const result: FieldError[] = [];
  for (const error of errors ?? []) {
    if (error.keyword === 'if') continue;
    const params = error.params as { additionalProperty?: string; missingProperty?: string };
    const child = params.additionalProperty ?? params.missingProperty;
    // The whole document is the empty pointer (RFC 6901), not "/" (which names the key "").
    const pointer = child === undefined ? error.instancePath : `${error.instancePath}/${child}`;
    const message =
      params.additionalProperty !== undefined
        ? 'is not a known field'
        : params.missingProperty !== undefined
          ? 'is required'
          : (error.message ?? 'is invalid');
    const key = `${pointer} ${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    result.push({ pointer, message });
  }
  return result;
}

/** With the `u` flag a pair is one code point: this finds only half a pair left alone. */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/** JSON Pointer escaping of one key (RFC 6901). */
const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * What the schemas' patterns cannot say in a form every engine reads, as field errors: half a
 * surrogate pair (JSON's `"\ud800"`), which is no Unicode text, and a code point nobody can see
 * where it stands (`visible-text.ts`), named so that the client can find it.
 */
function unreadableText(value: unknown, pointer = ''): FieldError[] {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) return [{ pointer, message: 'must be Unicode text (a lone surrogate)' }];
    const invisible = findInvisibleCharacter(value);
    return invisible
      ? [
          {
            pointer,
            message: `contains ${invisible.codePoint}, ${invisible.kind}, at character ${invisible.position + 1}`,
          },
        ]
      : [];
  }
  if (typeof value !== 'object' || value === null) return [];
  return Object.entries(value).flatMap(([key, child]) => [
    ...(LONE_SURROGATE.test(key) ? [{ pointer, message: `has a key that is not Unicode text` }] : []),
    ...unreadableText(child, `${pointer}/${pointerKey(key)}`),
  ]);
}

/** ajv's errors less those that only restate, less clearly, what `unreadable` says of the same value. */
function besides(errors: readonly ErrorObject[] | null | undefined, unreadable: readonly FieldError[]) {
  const flagged = new Set(unreadable.map((e) => e.pointer));
  const restating = new Set(['pattern', 'format', 'type', 'oneOf']);
  return (errors ?? []).filter((e) => !(flagged.has(e.instancePath) && restating.has(e.keyword)));
}

/** Checks a request body against its schema; throws VALIDATION_FAILED (422) listing every field. */
export function validateBody<T>(schema: object, body: unknown): T {
  const validate = compile(bodyAjv, schema);
  const unreadable = unreadableText(body);
  if (!validate(body) || unreadable.length) {
    const errors = [...toFieldErrors(besides(validate.errors, unreadable)), ...unreadable];
    throw new ProxyopsError(
      'VALIDATION_FAILED',
      `the request body is invalid: ${errors.map((e) => `${e.pointer} ${e.message}`).join('; ')}`,
      { details: { errors } },
    );
  }
  return body as T;
}

/** A query integer as a client writes one: ajv's coercion also takes "0x10", "1e1", " 1" and "Infinity". */
const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]{0,14})$/;

function nonDecimalIntegers(schema: object, query: Record<string, unknown>): FieldError[] {
  const properties = (schema as { properties?: Record<string, { type?: unknown }> }).properties ?? {};
  return Object.entries(properties)
    .filter(([name, property]) => {
      const value = query[name];
      return property.type === 'integer' && typeof value === 'string' && !DECIMAL_INTEGER.test(value);
    })
    .map(([name]) => ({ pointer: `/${name}`, message: 'must be an integer' }));
}

/** Checks (and coerces) query parameters; throws BAD_PARAMETER (400) listing every parameter. */
export function validateQuery<T>(schema: object, query: Record<string, unknown>): T {
  const copy = { ...query };
  const validate = compile(queryAjv, schema);
  const notIntegers = nonDecimalIntegers(schema, query);
  const unreadable = unreadableText(query);
  if (!validate(copy) || notIntegers.length > 0 || unreadable.length > 0) {
    const errors = [
      ...notIntegers,
      ...toFieldErrors(besides(validate.errors, unreadable)).filter(
        (e) => !notIntegers.some((n) => n.pointer === e.pointer),
      ),
      ...unreadable,
    ];
    throw new ProxyopsError(
      'BAD_PARAMETER',
      `bad query parameter: ${errors.map((e) => `${e.pointer} ${e.message}`).join('; ')}`,
      { details: { errors } },
    );
  }
  return copy as T;
}
