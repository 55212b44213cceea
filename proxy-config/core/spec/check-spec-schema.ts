import {
  Ajv,
  type ErrorObject,
  type KeywordDefinition,
  type SchemaValidateFunction,
  type ValidateFunction,
} from 'ajv';
import schema from '../../schema/proxy-spec.schema.json' with { type: 'json' };
import { parseNginxSize } from '../nginx-config/units.js';
import { toDottedPath, type SpecProblem } from './spec-problem.js';

let compiled: ValidateFunction | undefined;

/**
 * `"maxSize": "1024g"`: the largest nginx size a string may name. JSON Schema bounds numbers only,
 * and a size past what nginx accepts would pass here and fail later at `nginx -t` (exit 1).
 */
const checkMaxSize: SchemaValidateFunction = (limit: string, value: string) => {
  // A string that is not a size at all is the pattern's to report.
  if ((parseNginxSize(value) ?? 0) <= (parseNginxSize(limit) ?? 0)) return true;
  checkMaxSize.errors = [{ keyword: 'maxSize', message: `must be at most ${limit}`, params: { limit } }];
  return false;
};
const MAX_SIZE: KeywordDefinition = {
  keyword: 'maxSize',
  type: 'string',
  schemaType: 'string',
  errors: true,
  validate: checkMaxSize,
};

function validator(): ValidateFunction {
  // verbose: a pattern error carries its schema, whose `patternMeans` says the pattern in words.
  compiled ??= new Ajv({ allErrors: true, strict: true, allowUnionTypes: true, verbose: true })
    .addKeyword(MAX_SIZE)
    .addKeyword({ keyword: 'patternMeans', schemaType: 'string' })
    .compile(schema);
  return compiled;
}

/** Checks raw spec data against the JSON Schema; one problem per violated rule, sorted by path. */
export function checkSpecSchema(data: unknown): SpecProblem[] {
  const validate = validator();
  if (validate(data)) return [];
  const problems = reportable(validate.errors ?? []).map(toProblem);
  const seen = new Set<string>();
  return problems
    .filter((p) => {
      const key = `${p.path}|${p.rule}|${p.message}`;
      return seen.has(key) ? false : (seen.add(key), true);
    })
    .sort((a, b) => a.path.localeCompare(b.path) || a.rule.localeCompare(b.rule));
}

/**
 * Keeps the errors that say what is wrong. `anyOf` and `if` only repeat their branches'. A value of
 * the type of one `anyOf` branch (`"1g"` for a size-or-null) is wrong by that branch's rules: the
 * other branches' `must be null`-style type errors would only confuse.
 */
function reportable(errors: ErrorObject[]): ErrorObject[] {
  const irrelevant = new Set<ErrorObject>();
  for (const anyOf of errors.filter((e) => e.keyword === 'anyOf')) {
    const at = anyOf.instancePath;
    const within = (e: ErrorObject) => e.instancePath === at || e.instancePath.startsWith(`${at}/`);
    const branchType = (e: ErrorObject) =>
      e.keyword === 'type' && e.instancePath === at && e.schemaPath.startsWith(`${anyOf.schemaPath}/`);
    // An error inside the value (`hsts.maxAge`) means it was read as that branch's object or array.
    const typeMatched = errors.some(
      (e) => within(e) && (e.instancePath !== at || !['type', 'anyOf', 'if'].includes(e.keyword)),
    );
    if (typeMatched) for (const e of errors.filter(branchType)) irrelevant.add(e);
  }
  return errors.filter((e) => e.keyword !== 'anyOf' && e.keyword !== 'if' && !irrelevant.has(e));
}

function toProblem(error: ErrorObject): SpecProblem {
  const segments = error.instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replaceAll('~1', '/').replaceAll('~0', '~'));
  const params = error.params as Record<string, unknown>;
  switch (error.keyword) {
    case 'required':
      return {
        path: toDottedPath([...segments, String(params.missingProperty)]),
        rule: 'required',
        message: 'is required',
      };
    case 'additionalProperties':
      return {
        path: toDottedPath([...segments, String(params.additionalProperty)]),
        rule: 'additionalProperties',
        message: 'is not a known field',
      };
    case 'propertyNames':
      return {
        path: toDottedPath([...segments, String(params.propertyName)]),
        rule: 'propertyNames',
        message: 'is not a valid name (letters, digits, _ and -, starting with a letter)',
      };
    case 'enum':
      return {
        path: toDottedPath(segments),
        rule: 'enum',
        message: `must be one of ${(params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`,
      };
    case 'const':
      return {
        path: toDottedPath(segments),
        rule: 'const',
        message: `must be ${JSON.stringify(params.allowedValue)}`,
      };
    case 'pattern': {
      // A regex says little to whoever wrote `proxy_buffering off;`: a definition may say it in words.
      const { patternMeans } = (error.parentSchema ?? {}) as { patternMeans?: string };
      return {
        path: toDottedPath(segments),
        rule: 'pattern',
        message: patternMeans ? `must be ${patternMeans}` : (error.message ?? 'is invalid'),
      };
    }
    default:
      return { path: toDottedPath(segments), rule: error.keyword, message: error.message ?? 'is invalid' };
  }
}
