import { parseDocument } from 'yaml';
import { ProxyopsError } from '../errors.js';

/** Parses spec text (YAML, so JSON too) into plain data; SPEC_UNREADABLE names the line and column. */
export function parseSpecText(text: string, source: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const where = first.linePos?.[0] ? `${first.linePos[0].line}:${first.linePos[0].col}` : '?';
    const reason = (first.message.split('\n')[0] ?? first.message).replace(/ at line \d+, column \d+:?$/, '');
    throw new ProxyopsError('SPEC_UNREADABLE', `${source}:${where}: not valid YAML/JSON: ${reason}`, {
      cause: first,
    });
  }
  try {
    return doc.toJS();
  } catch (error) {
    // The yaml library refuses to expand aliases past its limit (an "alias bomb" would take all
    // memory) and throws from toJS(), after parsing succeeded: still a spec we cannot read.
    throw new ProxyopsError(
      'SPEC_UNREADABLE',
      `${source}: not valid YAML/JSON: ${(error as Error).message.split('\n')[0]}`,
      { cause: error },
    );
  }
}
