/**
 * The small templating used by `templates/*.tmpl`, strict so that a typo fails loudly:
 *   {{name.path}}                 a string or number from the view (missing → error)
 *   {{#each list}}…{{/each}}      repeats for each item; names resolve on the item first, then outwards
 *   {{#if name}}…{{else}}…{{/if}} truthy test (empty arrays and empty strings are false)
 *   {{> partial}}                 another template, indented like the tag
 *   {{! comment}}                 dropped
 * A block, comment or partial tag alone on its line takes the whole line with it.
 */
import { ProxyopsError } from '../errors.js';

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'value'; name: string }
  | Block
  | { kind: 'partial'; name: string; indent: string };

interface Block {
  kind: 'each' | 'if';
  name: string;
  body: Node[];
  otherwise: Node[];
}

type Scope = unknown[];

const TAG = /\{\{\s*([#/>!]?)\s*([\s\S]*?)\s*\}\}/g;

/** Renders template `name` from `templates` (name → text) with `view`. */
export function renderTemplate(templates: Record<string, string>, name: string, view: unknown): string {
  return renderNamed(templates, name, [view], new Map());
}

function renderNamed(
  templates: Record<string, string>,
  name: string,
  scope: Scope,
  cache: Map<string, Node[]>,
): string {
  let nodes = cache.get(name);
  if (!nodes) {
    const text = templates[name];
    if (text === undefined) throw templateError(`no template named "${name}"`);
    nodes = parseTemplate(text, name);
    cache.set(name, nodes);
  }
  return renderNodes(nodes, scope, templates, cache, name);
}

function parseTemplate(text: string, source: string): Node[] {
  const root: Node[] = [];
  const stack: Array<{ node: Block; inElse: boolean }> = [];
  const target = () => {
    const top = stack.at(-1);
    return top ? (top.inElse ? top.node.otherwise : top.node.body) : root;
  };
  let cursor = 0;
  for (const match of text.matchAll(TAG)) {
    const [whole, sigil = '', body = ''] = match;
    const start = match.index;
    let end = start + whole.length;
    const isBlockish = sigil !== '' || body === 'else';
    let textEnd = start;
    let indent = '';
    if (isBlockish) {
      const lineStart = text.lastIndexOf('\n', start - 1) + 1;
      const newline = text.indexOf('\n', end);
      const lineEnd = newline === -1 ? text.length : newline + 1;
      const before = text.slice(lineStart, start);
      if (/^[ \t]*$/.test(before) && /^[ \t]*\r?\n?$/.test(text.slice(end, lineEnd)) && lineStart >= cursor) {
        textEnd = lineStart;
        end = lineEnd;
        indent = before;
      }
    }
    if (textEnd > cursor) target().push({ kind: 'text', text: text.slice(cursor, textEnd) });
    cursor = end;
    if (sigil === '!') continue;
    if (sigil === '>') {
      target().push({ kind: 'partial', name: body, indent });
    } else if (sigil === '#') {
      const [keyword, name] = body.split(/\s+/, 2);
      if ((keyword !== 'each' && keyword !== 'if') || !name)
        throw templateError(`${source}: unknown block "{{#${body}}}"`);
      const node = { kind: keyword, name, body: [], otherwise: [] } as Block;
      target().push(node);
      stack.push({ node, inElse: false });
    } else if (sigil === '/') {
      const top = stack.pop();
      if (!top || top.node.kind !== body) throw templateError(`${source}: unexpected "{{/${body}}}"`);
    } else if (body === 'else') {
      const top = stack.at(-1);
      if (!top || top.inElse) throw templateError(`${source}: "{{else}}" outside a block`);
      top.inElse = true;
    } else {
      target().push({ kind: 'value', name: body });
    }
  }
  if (stack.length > 0) throw templateError(`${source}: "{{#${stack.at(-1)?.node.kind}}}" is never closed`);
  if (cursor < text.length) root.push({ kind: 'text', text: text.slice(cursor) });
  return root;
}

function renderNodes(
  nodes: Node[],
  scope: Scope,
  templates: Record<string, string>,
  cache: Map<string, Node[]>,
  source: string,
): string {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text;
    else if (node.kind === 'value') {
      const value = lookup(scope, node.name, source);
      if (typeof value !== 'string' && typeof value !== 'number')
        throw templateError(`${source}: {{${node.name}}} is ${describe(value)}, not a string or number`);
      out += String(value);
    } else if (node.kind === 'partial') {
      const text = renderNamed(templates, node.name, scope, cache);
      out += node.indent ? text.replace(/^(?=.)/gm, node.indent) : text;
    } else if (node.kind === 'each') {
      const list = lookup(scope, node.name, source);
      if (!Array.isArray(list)) throw templateError(`${source}: {{#each ${node.name}}} needs a list`);
      for (const item of list) out += renderNodes(node.body, [...scope, item], templates, cache, source);
    } else {
      const branch = isTruthy(lookup(scope, node.name, source)) ? node.body : node.otherwise;
      out += renderNodes(branch, scope, templates, cache, source);
    }
  }
  return out;
}

function lookup(scope: Scope, name: string, source: string): unknown {
  if (name === 'this') return scope.at(-1);
  const [head = '', ...rest] = name.split('.');
  for (let i = scope.length - 1; i >= 0; i--) {
    const frame = scope[i];
    if (frame !== null && typeof frame === 'object' && Object.hasOwn(frame, head)) {
      let value: unknown = (frame as Record<string, unknown>)[head];
      for (const key of rest) {
        if (value === null || typeof value !== 'object' || !Object.hasOwn(value, key))
          throw templateError(`${source}: {{${name}}} has no "${key}"`);
        value = (value as Record<string, unknown>)[key];
      }
      return value;
    }
  }
  throw templateError(`${source}: {{${name}}} is not in the view`);
}

function isTruthy(value: unknown): boolean {
  return Array.isArray(value) ? value.length > 0 : Boolean(value);
}

function describe(value: unknown): string {
  return value === undefined ? 'undefined' : Array.isArray(value) ? 'a list' : typeof value;
}

function templateError(message: string): ProxyopsError {
  return new ProxyopsError('TEMPLATE_INVALID', `template: ${message}`);
}
