/** A style: wraps text in its ANSI codes (or returns it as it is when colour is off). */
export type Style = ((text: string) => string) & { bold: (text: string) => string };

/** The few terminal styles the reports use, as plain functions over strings. */
export interface TextStyles {
  bold: (text: string) => string;
  dim: (text: string) => string;
  red: Style;
  green: Style;
  yellow: Style;
  blue: Style;
  cyan: Style;
}

/**
 * The 16-colour ANSI styles when `color`, else the identity. The caller decides (a TTY, NO_COLOR,
 * --color): looking at the terminal here would make rendering depend on the process it runs in, and
 * loading a colour library's terminal probe costs every short run a few milliseconds (bench:cli).
 */
export function textStyles(color: boolean): TextStyles {
  const wrap = (open: number, close: number) => (text: string) =>
    color ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  const bold = wrap(1, 22);
  const hue = (open: number): Style => {
    const paint = wrap(open, 39);
    return Object.assign(paint, { bold: (text: string) => paint(bold(text)) });
  };
  return {
    bold,
    dim: wrap(2, 22),
    red: hue(31),
    green: hue(32),
    yellow: hue(33),
    blue: hue(34),
    cyan: hue(36),
  };
}
