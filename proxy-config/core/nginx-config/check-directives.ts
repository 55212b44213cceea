import type { ProxyopsError } from '../errors.js';
import { hasLaterParameter } from './later-parameters.js';
import { NGINX_MODULE_DIRECTIVES } from './nginx-directives.js';
import { nginxSyntaxError, runOnError, type NginxConfigCheck } from './nginx-config-error.js';
import type { NginxDirective } from './types.js';

/** Where a directive is written, as nginx's config reader tells its contexts apart. */
export type NginxContext =
  | 'main'
  | 'events'
  | 'http'
  | 'server'
  | 'location'
  | 'if in server'
  | 'if in location'
  | 'limit_except'
  | 'upstream'
  | 'mail'
  | 'mail server'
  | 'stream'
  | 'stream server'
  | 'stream upstream';

/**
 * Each context as nginx's (module type, command type bit). The bits alone are not enough: the
 * events, http, mail and stream main contexts share one bit, told apart by the module's type.
 */
const CONTEXT_FLAGS: Record<NginxContext, { module: string; flag: string }> = {
  main: { module: 'core', flag: 'MAIN' },
  events: { module: 'event', flag: 'EVENT' },
  http: { module: 'http', flag: 'HTTP_MAIN' },
  server: { module: 'http', flag: 'HTTP_SRV' },
  location: { module: 'http', flag: 'HTTP_LOC' },
  'if in server': { module: 'http', flag: 'HTTP_SIF' },
  'if in location': { module: 'http', flag: 'HTTP_LIF' },
  limit_except: { module: 'http', flag: 'HTTP_LMT' },
  upstream: { module: 'http', flag: 'HTTP_UPS' },
  mail: { module: 'mail', flag: 'MAIL_MAIN' },
  'mail server': { module: 'mail', flag: 'MAIL_SRV' },
  stream: { module: 'stream', flag: 'STREAM_MAIN' },
  'stream server': { module: 'stream', flag: 'STREAM_SRV' },
  'stream upstream': { module: 'stream', flag: 'STREAM_UPS' },
};

/** The context a block's body is read in; blocks not named here hold data or unknown syntax. */
const BLOCK_BODY: Partial<Record<NginxContext, Record<string, NginxContext>>> = {
  main: { events: 'events', http: 'http', mail: 'mail', stream: 'stream' },
  http: { server: 'server', upstream: 'upstream' },
  server: { location: 'location', if: 'if in server' },
  location: { location: 'location', if: 'if in location', limit_except: 'limit_except' },
  mail: { server: 'mail server' },
  stream: { server: 'stream server', upstream: 'stream upstream' },
};

/** One `ngx_command_t` entry: the module type, its context flags and its argument rule. */
interface DirectiveForm {
  module: string;
  contexts: ReadonlySet<string>;
  block: boolean;
  /** Accepted argument counts (not counting the name), or a lower bound for 1MORE/2MORE. */
  counts: ReadonlySet<number>;
  atLeast: number | undefined;
  anyCount: boolean;
}

const TAKE: Record<string, number[]> = {
  NOARGS: [0],
  TAKE1: [1],
  TAKE2: [2],
  TAKE3: [3],
  TAKE4: [4],
  TAKE5: [5],
  TAKE6: [6],
  TAKE7: [7],
  TAKE12: [1, 2],
  TAKE13: [1, 3],
  TAKE23: [2, 3],
  TAKE123: [1, 2, 3],
  TAKE1234: [1, 2, 3, 4],
};

function moduleOf(flags: string[]): string {
  if (flags.includes('ANYWHERE')) return 'conf';
  if (flags.includes('EVENT')) return 'event';
  const prefixed = flags.find((f) => /^(HTTP|MAIL|STREAM)_/.test(f));
  return prefixed ? (prefixed.split('_')[0] as string).toLowerCase() : 'core';
}

function toForm(type: string): DirectiveForm {
  const flags = type.split('|');
  const counts = new Set(flags.flatMap((f) => TAKE[f] ?? []));
  // ngx_conf_handler: FLAG wins over the others, then 1MORE, then 2MORE, then the TAKEn bits.
  const flag = flags.includes('FLAG');
  if (flag) counts.add(1);
  const atLeast = flag ? undefined : flags.includes('1MORE') ? 1 : flags.includes('2MORE') ? 2 : undefined;
  return {
    module: moduleOf(flags),
    contexts: new Set(flags),
    block: flags.includes('BLOCK'),
    counts: flag ? new Set([1]) : counts,
    atLeast,
    anyCount: flags.includes('ANY'),
  };
}

const FORMS: ReadonlyMap<string, readonly DirectiveForm[]> = (() => {
  const forms = new Map<string, DirectiveForm[]>();
  for (const { directives } of NGINX_MODULE_DIRECTIVES)
    for (const [name, type] of Object.entries(directives)) {
      const same = forms.get(name);
      if (same) same.push(toForm(type));
      else forms.set(name, [toForm(type)]);
    }
  return forms;
})();

/** The kind of block a context is (its module type): the main context, events, http, mail or stream. */
export type NginxScope = 'main' | 'events' | 'http' | 'mail' | 'stream';

/** The kind of block nginx reads a context as: `location` and `if in server` are http, `stream server` stream. */
export function scopeOf(context: NginxContext): NginxScope {
  const { module } = CONTEXT_FLAGS[context];
  return module === 'core' ? 'main' : module === 'event' ? 'events' : (module as NginxScope);
}

/** True when nginx (with Debian's modules) knows a directive of this name in some context. */
export function isNginxDirective(name: string): boolean {
  return FORMS.has(name);
}

function allowedIn(form: DirectiveForm, context: NginxContext): boolean {
  const { module, flag } = CONTEXT_FLAGS[context];
  if (form.module === 'conf') return form.contexts.has('ANYWHERE');
  return form.module === module && form.contexts.has(flag);
}

/** Every directive name nginx (with Debian's modules) knows, in some context. */
export function nginxDirectiveNames(): IterableIterator<string> {
  return FORMS.keys();
}

const allowedNames = new Map<NginxContext, readonly string[]>();

/** The directives nginx takes in a context: what a misspelt name there may have meant. */
export function directivesAllowedIn(context: NginxContext): readonly string[] {
  let names = allowedNames.get(context);
  if (!names) {
    names = [...FORMS].filter(([, forms]) => forms.some((f) => allowedIn(f, context))).map(([name]) => name);
    allowedNames.set(context, names);
  }
  return names;
}

/** The contexts nginx takes a directive in, in CONTEXT_FLAGS's order (none for an unknown name). */
export function contextsAllowing(name: string): NginxContext[] {
  const forms = FORMS.get(name) ?? [];
  return (Object.keys(CONTEXT_FLAGS) as NginxContext[]).filter((c) => forms.some((f) => allowedIn(f, c)));
}

function countFits(form: DirectiveForm, count: number): boolean {
  if (form.anyCount) return true;
  if (form.atLeast !== undefined) return count >= form.atLeast;
  return form.counts.has(count);
}

/**
 * False when nginx refuses the directive wherever it may stand: no form of it takes this many
 * arguments with (or without) a block. True for a name nginx does not know (a module may take it).
 */
export function takenSomewhere(directive: NginxDirective, opened: boolean): boolean {
  const forms = FORMS.get(directive.name);
  if (!forms) return true;
  return forms.some((f) => f.block === opened && countFits(f, directive.args.length));
}

/** Which of nginx's checks a directive failed: the stable `details.check` of its error. */
type DirectiveCheck = Extract<
  NginxConfigCheck,
  'context' | 'block' | 'terminator' | 'argument-count' | 'if-condition'
>;

/** The first of nginx's context, block and argument-count checks one directive fails, as nginx words it. */
function checkOne(
  directive: NginxDirective,
  context: NginxContext,
): { check: DirectiveCheck; message: string } | undefined {
  const forms = FORMS.get(directive.name);
  // Unknown names are left alone: third-party modules (Lua, njs, ...) bring their own.
  if (!forms) return undefined;
  const form = forms.find((f) => allowedIn(f, context));
  const name = directive.name;
  if (!form) return { check: 'context', message: `"${name}" directive is not allowed here` };
  const opened =
    directive.children !== undefined || directive.entries !== undefined || directive.raw !== undefined;
  if (!form.block && opened)
    return { check: 'terminator', message: `directive "${name}" is not terminated by ";"` };
  if (form.block && !opened) return { check: 'block', message: `directive "${name}" has no opening "{"` };
  // A parameter of a later release (`keepalive 16 local`, 1.29.7) is judged by the version lint
  // judges against (directive-not-in-version), not refused while reading.
  if (!countFits(form, directive.args.length) && !hasLaterParameter(directive))
    return { check: 'argument-count', message: `invalid number of arguments in "${name}" directive` };
  // The rewrite module's own check, the first thing its `if` handler does.
  if (directive.invalidCondition !== undefined)
    return { check: 'if-condition', message: `invalid condition "${directive.invalidCondition}"` };
  return undefined;
}

/**
 * Checks directives the way `nginx -t` does before running any directive's own handler: that the
 * directive may be written in its context, has a block exactly when it must, and has an argument
 * count its module accepts. Returns the first failure in reading order (nginx stops there too),
 * as NGINX_CONFIG_INVALID with nginx's message at the line nginx reports (where the statement ends).
 */
export function checkDirectives(
  directives: readonly NginxDirective[],
  context: NginxContext,
): ProxyopsError | undefined {
  for (const directive of directives) {
    // Kept by markNotAllowed for lint to report; nginx never reads what is inside it.
    if (directive.notAllowedIn !== undefined) continue;
    const failed = checkOne(directive, context);
    // A directive run on into the next line's (semicolon-missing): its lost `;` is the error to show.
    if (failed && directive.runsOnAt) return runOnError(directive, directive.runsOnAt);
    if (failed)
      return nginxSyntaxError(
        directive.file,
        directive.statementEndLine ?? directive.line,
        failed.message,
        failed.check,
      );
    const inner = BLOCK_BODY[context]?.[directive.name];
    if (inner && directive.children) {
      const error = checkDirectives(directive.children, inner);
      if (error) return error;
      // The upstream module's own check, made when the block closes (so before what follows it).
      if (directive.name === 'upstream' && !directive.children.some((d) => d.name === 'server'))
        return nginxSyntaxError(
          directive.file,
          directive.endLine ?? directive.line,
          'no servers are inside upstream',
          'upstream-empty',
        );
    }
  }
  return undefined;
}

/**
 * Visits each directive with the context nginx reads it in, going into the blocks whose body nginx
 * reads as directives (http, server, location, if, limit_except, upstream, events, mail, stream):
 * not into data blocks (map, types, geo, ...: their entries are not directives), Lua source, a block
 * nginx refuses where it stands, or a block nginx does not know (a module's, read by its own rules).
 */
export function walkInContext(
  directives: readonly NginxDirective[],
  context: NginxContext,
  visit: (directive: NginxDirective, context: NginxContext) => void,
): void {
  for (const directive of directives) {
    visit(directive, context);
    const inner = BLOCK_BODY[context]?.[directive.name];
    if (inner && directive.children && directive.notAllowedIn === undefined)
      walkInContext(directive.children, inner, visit);
  }
}

/**
 * A copy of the tree with each directive nginx refuses in its context ("not allowed here") marked
 * `notAllowedIn` that context, so lint can report it and read on; checkDirectives then skips it.
 */
export function markNotAllowed(
  directives: readonly NginxDirective[],
  context: NginxContext,
): NginxDirective[] {
  return directives.map((directive) => {
    // A statement run on into the next line's stays unmarked: checkDirectives refuses it with the lost `;`.
    if (!directive.runsOnAt && checkOne(directive, context)?.check === 'context')
      return { ...directive, notAllowedIn: context };
    const inner = BLOCK_BODY[context]?.[directive.name];
    return inner && directive.children
      ? { ...directive, children: markNotAllowed(directive.children, inner) }
      : directive;
  });
}

/** Contexts a snippet's top level may be read in: included in one of these blocks. */
export const SNIPPET_CONTEXTS = ['http', 'server', 'location'] as const;

export type SnippetContext = (typeof SNIPPET_CONTEXTS)[number];

/**
 * Where Debian's stock nginx.conf includes a file from, by its path: `conf.d/*.conf` and
 * `sites-enabled/*` (with `sites-available/*`, their source) inside http.
 */
function stockLayoutContext(file: string): SnippetContext | undefined {
  return /(?:^|\/)conf\.d\/[^/]+\.conf$|(?:^|\/)sites-(?:enabled|available)\/[^/]+$/.test(file)
    ? 'http'
    : undefined;
}

/**
 * The context a file's top level is read in: main when any of its directives belongs there only
 * (`events`, `http`, `user`, `pid`, ...), as in nginx.conf. Otherwise it is a snippet linted on
 * its own, read where it would be included: http for a file where Debian's stock layout includes
 * it into http (`conf.d/*.conf`, `sites-enabled/*`), else the first of http, server and location
 * where nginx accepts the whole file, else the one that accepts the most of its directives (whose
 * first refusal is then reported).
 */
export function topLevelContext(directives: readonly NginxDirective[], file = ''): NginxContext {
  const allowed = (d: NginxDirective, context: NginxContext) => checkOne(d, context)?.check !== 'context';
  const mainOnly = (d: NginxDirective) =>
    isNginxDirective(d.name) && allowed(d, 'main') && !SNIPPET_CONTEXTS.some((c) => allowed(d, c));
  if (directives.some(mainOnly)) return 'main';
  const stock = stockLayoutContext(file);
  if (stock) return stock;
  const accepted = SNIPPET_CONTEXTS.find((context) => !checkDirectives(directives, context));
  if (accepted) return accepted;
  let best: NginxContext = 'http';
  let bestAccepted = -1;
  for (const context of SNIPPET_CONTEXTS) {
    const accepted = directives.filter((d) => allowed(d, context)).length;
    if (accepted > bestAccepted) {
      best = context;
      bestAccepted = accepted;
    }
  }
  return best;
}
