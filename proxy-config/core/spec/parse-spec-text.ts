import { isMap, parseDocument } from 'yaml';
import { ProxyopsError } from '../errors.js';

/**
 * Lines only an nginx config has: a block opened by a context nginx knows, or a main-context
 * directive ended by `;`. A spec (YAML/JSON) has neither at the start of a line.
 */
const NGINX_CONFIG_LINE =
  /^\s*(?:(?:http|events|server|upstream|stream|location\s+[^\n{]*|map\s+\S+\s+\S+)\s*\{|(?:worker_processes|user|pid|include|error_log|access_log|listen|server_name|proxy_pass|root)\s[^\n]*;\s*(?:#.*)?$)/m;

/** The error for an nginx config given where a spec belongs: say what it is and where each goes. */
function nginxConfigAsSpec(source: string): ProxyopsError {
  return new ProxyopsError(
    'SPEC_UNREADABLE',
    `${source}: this is an nginx config, not a proxyops spec (YAML/JSON: see docs/proxy-config.md); ` +
      '--spec takes a spec, and `proxyops config lint FILE` or `proxyops diagnose SYMPTOM --config FILE` (SYMPTOM: 502, 504, 413 …) read an nginx config',
  );
}

/** Parses spec text (YAML, so JSON too) into plain data; SPEC_UNREADABLE names the line and column. */
export function parseSpecText(text: string, source: string): unknown {
  const doc = parseDocument(text, { prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  // An nginx config is not YAML, or is one long string: either way, no spec.
  const notMapping = first !== undefined || !isMap(doc.contents);
  if (notMapping && NGINX_CONFIG_LINE.test(text)) throw nginxConfigAsSpec(source);
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
