/** Escapes text for HTML and SVG content and attribute values (log text is hostile). */
export function esc(text: string): string {
  return text.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`);
}

/** Chart text is set in a monospace font, whose advance is at most this many em per column. */
const COLUMN_EM = 0.62;

/** Columns a character takes: wide (East Asian) characters take two. */
function columns(ch: string): number {
  return ch.codePointAt(0)! >= 0x2e80 ? 2 : 1;
}

/** Width in px of `text` at `fontPx` (an upper bound: labels are placed so that bounds never meet). */
export function textWidth(text: string, fontPx: number): number {
  let n = 0;
  for (const ch of text) n += columns(ch);
  return n * fontPx * COLUMN_EM;
}

/** `text` cut with an ellipsis to fit `maxPx` (the whole text goes in the hover detail). */
export function fitLabel(text: string, maxPx: number, fontPx: number): string {
  if (textWidth(text, fontPx) <= maxPx) return text;
  const room = Math.floor(maxPx / (fontPx * COLUMN_EM)) - 1; // the ellipsis takes one column
  let out = '';
  let used = 0;
  for (const ch of text) {
    if (used + columns(ch) > room) break;
    out += ch;
    used += columns(ch);
  }
  return out + '…';
}

/** A count with thousands separators: exact, for the hover detail and tables. */
export function exactCount(n: number): string {
  // By hand: toLocaleString starts Intl, which costs more than drawing the whole report.
  const digits = String(Math.round(Math.abs(n)));
  let out = '';
  for (let i = 0; i < digits.length; i++)
    out += (i > 0 && (digits.length - i) % 3 === 0 ? ',' : '') + digits[i];
  return n < 0 ? `-${out}` : out;
}

/** A short count for axis ticks: 950, 1.2k, 15k, 3.4M. */
export function shortCount(n: number): string {
  const abs = Math.abs(n);
  const cut = (v: number, unit: string) => `${Number(v.toPrecision(3))}${unit}`;
  if (abs >= 1e9) return cut(n / 1e9, 'G');
  if (abs >= 1e6) return cut(n / 1e6, 'M');
  if (abs >= 1e4) return cut(n / 1e3, 'k');
  return String(Number(n.toPrecision(4)));
}

/** Seconds as nginx logs them (millisecond resolution): "0.012 s". */
export function seconds(value: number | null): string {
  return value === null ? 'none' : `${value.toFixed(3)} s`;
}

/** An SVG <text> element; `anchor` is start, middle or end. */
export function svgText(
  x: number,
  y: number,
  text: string,
  options: { anchor?: 'start' | 'middle' | 'end'; cls?: string; tip?: string } = {},
): string {
  const anchor = options.anchor && options.anchor !== 'start' ? ` text-anchor="${options.anchor}"` : '';
  const cls = options.cls ? ` class="${options.cls}"` : '';
  const tip = options.tip ? ` data-tip="${esc(options.tip)}"` : '';
  return `<text x="${r(x)}" y="${r(y)}"${anchor}${cls}${tip}>${esc(text)}</text>`;
}

/** Rounds a coordinate to a tenth of a pixel: shorter files, no visible difference. */
export function r(value: number): number {
  return Math.round(value * 10) / 10;
}

/** A legend: one swatch and name per series, wrapped by the page (HTML, so it never overlaps). */
export function legend(
  id: string,
  items: Array<{ label: string; cls: string; shape?: 'box' | 'dot' | 'diamond' | 'tick' }>,
): string {
  const swatch = (cls: string, shape: string) => {
    const inner =
      shape === 'dot'
        ? `<circle cx="6" cy="6" r="4.5" class="${cls}"/>`
        : shape === 'diamond'
          ? `<path d="M6 1 L11 6 L6 11 L1 6 Z" class="${cls}"/>`
          : shape === 'tick'
            ? `<rect x="4" y="0" width="4" height="12" class="${cls}"/>`
            : `<rect x="0" y="0" width="12" height="12" class="${cls}"/>`;
    return `<svg width="12" height="12" viewBox="0 0 12 12" aria-hidden="true">${inner}</svg>`;
  };
  return `<ul class="legend" id="${id}">${items
    .map((item) => `<li>${swatch(item.cls, item.shape ?? 'box')}<span>${esc(item.label)}</span></li>`)
    .join('')}</ul>`;
}
