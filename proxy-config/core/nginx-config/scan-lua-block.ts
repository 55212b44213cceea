/**
 * Finds the `}` closing a `*_by_lua_block {` whose body starts at `start`, skipping Lua strings,
 * long brackets (`[[...]]`, `[==[...]==]`) and comments, so braces inside them do not count.
 * Returns the index of that `}`, or undefined when the text ends first.
 */
export function scanLuaBlock(text: string, start: number): { close: number } | undefined {
  let depth = 1;
  let i = start;
  while (i < text.length) {
    const ch = text[i] as string;
    if (ch === '-' && text[i + 1] === '-') {
      const long = longBracketEnd(text, i + 2);
      if (long !== undefined) i = long;
      else {
        const eol = text.indexOf('\n', i);
        i = eol === -1 ? text.length : eol;
      }
      continue;
    }
    if (ch === '[') {
      const long = longBracketEnd(text, i);
      if (long !== undefined) {
        i = long;
        continue;
      }
    }
    if (ch === '"' || ch === "'") {
      i++;
      while (i < text.length && text[i] !== ch && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1;
      i++;
      continue;
    }
    if (ch === '{') depth++;
    if (ch === '}' && --depth === 0) return { close: i };
    i++;
  }
  return undefined;
}

/** If a Lua long bracket (`[[` or `[=*[`) opens at `at`, the index just past its closing bracket. */
function longBracketEnd(text: string, at: number): number | undefined {
  const open = /^\[(=*)\[/.exec(text.slice(at, at + 64));
  if (!open) return undefined;
  const closer = `]${open[1]}]`;
  const end = text.indexOf(closer, at + open[0].length);
  return end === -1 ? text.length : end + closer.length;
}
