/** One thing wrong with a spec: where (dotted path), which rule, and what. */
export interface SpecProblem {
  path: string;
  rule: string;
  message: string;
}

/** `upstreams.api.servers[1].port: must be <= 65535 [maximum]`: the one-line form the CLI prints. */
export function formatSpecProblem(problem: SpecProblem): string {
  return `${problem.path}: ${problem.message} [${problem.rule}]`;
}

/** Joins path segments the way a reader writes them: `servers[0].routes[2].path`, `(root)` when empty. */
export function toDottedPath(segments: Array<string | number>): string {
  let out = '';
  for (const segment of segments) {
    if (typeof segment === 'number' || /^\d+$/.test(segment)) out += `[${segment}]`;
    else if (/^[A-Za-z_$][\w$-]*$/.test(segment)) out += out ? `.${segment}` : segment;
    else out += `[${JSON.stringify(segment)}]`;
  }
  return out || '(root)';
}
