import { describe, expect, it } from 'vitest';
import { renderTemplate } from '../../../../proxy-config/core/render/template-engine.js';

const render = (templates: Record<string, string>, view: unknown) => renderTemplate(templates, 'main', view);

describe('renderTemplate', () => {
  it('substitutes values, including dotted paths and numbers', () => {
    expect(render({ main: 'a {{x}} b {{y.z}}' }, { x: 'one', y: { z: 2 } })).toBe('a one b 2');
  });

  it('repeats each blocks, resolving names on the item first and then outwards', () => {
    const out = render(
      { main: 'list:\n{{#each items}}\n- {{name}} of {{owner}}\n{{/each}}\nend' },
      { owner: 'me', items: [{ name: 'a' }, { name: 'b', owner: 'you' }] },
    );
    expect(out).toBe('list:\n- a of me\n- b of you\nend');
  });

  it('takes if/else branches; empty lists count as false', () => {
    const t = { main: '{{#if on}}yes{{else}}no{{/if}}' };
    expect(render(t, { on: true })).toBe('yes');
    expect(render(t, { on: [] })).toBe('no');
    expect(render(t, { on: ['x'] })).toBe('yes');
  });

  it('indents a standalone partial like its tag and drops comment lines', () => {
    const out = render(
      { main: 'http {\n    {{> inner}}\n}\n', inner: '{{! a note }}\nline1;\nline2 {{v}};\n' },
      { v: 'x' },
    );
    expect(out).toBe('http {\n    line1;\n    line2 x;\n}\n');
  });

  it('fails loudly on a missing value, a non-scalar value, or an unclosed block', () => {
    expect(() => render({ main: '{{nope}}' }, {})).toThrow(/not in the view/);
    expect(() => render({ main: '{{a.b}}' }, { a: {} })).toThrow(/has no "b"/);
    expect(() => render({ main: '{{list}}' }, { list: [] })).toThrow(/a list, not a string/);
    expect(() => render({ main: '{{#if a}}x' }, { a: true })).toThrow(/never closed/);
    expect(() => render({ main: '{{> missing}}' }, {})).toThrow(/no template named "missing"/);
  });
});
