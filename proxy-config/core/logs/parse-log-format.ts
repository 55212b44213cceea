import { ProxyopsError } from '../errors.js';

/** How nginx escapes variable values in a log line (`log_format NAME escape=...`). */
export type LogEscape = 'default' | 'json' | 'none';

/** A `log_format` split into literal text and variables: `literals[i]` precedes `variables[i]`. */
export interface LogFormatParts {
  escape: LogEscape;
  /** One more literal than variables: literal, var, literal, ..., var, literal. */
  literals: string[];
  variables: string[];
}

const NAME_CHAR = /[A-Za-z0-9_]/;

/** Splits a log_format string (as nginx holds it after config unquoting) into literals and `$variables`. */
export function parseLogFormat(format: string, escape: LogEscape = 'default'): LogFormatParts {
  const literals: string[] = [];
  const variables: string[] = [];
  let literal = '';
  let i = 0;
  while (i < format.length) {
    const ch = format[i]!;
    if (ch !== '$') {
      literal += ch;
      i++;
      continue;
    }
    let name = '';
    if (format[i + 1] === '{') {
      const close = format.indexOf('}', i + 2);
      if (close < 0) throw invalid(`unclosed "\${" at offset ${i}`, format);
      name = format.slice(i + 2, close);
      i = close + 1;
    } else {
      let j = i + 1;
      while (j < format.length && NAME_CHAR.test(format[j]!)) j++;
      name = format.slice(i + 1, j);
      i = j;
    }
    if (!/^[A-Za-z0-9_]+$/.test(name)) throw invalid(`bad variable name at offset ${i}`, format);
    if (variables.length > 0 && literal === '')
      throw invalid(
        `$${variables.at(-1)} and $${name} have no text between them, so a line cannot be split`,
        format,
      );
    literals.push(literal);
    variables.push(name.toLowerCase());
    literal = '';
  }
  literals.push(literal);
  if (variables.length === 0) throw invalid('it holds no $variable', format);
  return { escape, literals, variables };
}

function invalid(reason: string, format: string): ProxyopsError {
  return new ProxyopsError('LOG_FORMAT_INVALID', `log format is invalid: ${reason}: '${format}'`, {
    details: { format },
  });
}
