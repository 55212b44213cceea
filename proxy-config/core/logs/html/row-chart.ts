import { linearTicks } from './scales.js';
import { fitLabel, r, shortCount, svgText, textWidth } from './svg-text.js';

// Charts of one row per item (upstreams, paths): fixed row height, names cut to their column, panels
// with their own axis in a header above the rows.

export const FONT = 11;
export const ROW = 20;
export const HEAD = 40;
/** Room kept right of a bar for its count. */
export const COUNT_W = 46;

/** The panel's x axis, ticks and title, drawn in the header above the rows. */
export function panelHead(
  [left, right]: [number, number],
  title: string,
  ticks: Array<{ x: number; label: string }>,
  bottom: number,
): string {
  const out = [svgText(left, 12, fitLabel(title, right - left, FONT), { cls: 'panel-title' })];
  let lastRight = -Infinity;
  for (const t of ticks) {
    // A label that would meet the one before it is thinned out; its grid line stays.
    const half = textWidth(t.label, FONT) / 2;
    if (t.x - half > lastRight + 6) {
      out.push(svgText(t.x, 30, t.label, { anchor: 'middle', cls: 'tick' }));
      lastRight = t.x + half;
    }
    out.push(`<line class="grid" x1="${r(t.x)}" x2="${r(t.x)}" y1="${HEAD - 6}" y2="${bottom}"/>`);
  }
  return out.join('');
}

/** Count ticks of a bar panel that fit its width, with their x. */
export function countTicks([left, right]: [number, number], max: number) {
  const width = right - left - COUNT_W;
  const { top, ticks } = linearTicks(max, Math.max(2, Math.floor(width / 40)), true);
  const x = (v: number) => left + (v / top) * width;
  return { x, ticks: ticks.map((v) => ({ x: x(v), label: shortCount(v) })) };
}
