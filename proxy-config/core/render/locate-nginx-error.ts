const LOCATION = / in (\S+):(\d+)\s*$/;

/** Where nginx says a config error is: the `in FILE:LINE` its messages end with. */
export function locateNginxError(output: string): { file: string; line: number } | undefined {
  for (const line of output.split('\n')) {
    const match = LOCATION.exec(line);
    if (match?.[1] && match[2]) return { file: match[1], line: Number(match[2]) };
  }
  return undefined;
}

/** nginx's message, paths made relative to `dir`, with the failing line of the rendered file quoted under it. */
export function explainNginxError(output: string, files: Record<string, string>, dir: string): string {
  const lines = output.trim().split('\n');
  const at = lines.findIndex((l) => LOCATION.test(l));
  const where = locateNginxError(output);
  if (where?.file.startsWith(`${dir}/`)) {
    const quoted = files[where.file.slice(dir.length + 1)]?.split('\n')[where.line - 1];
    if (quoted !== undefined) lines.splice(at + 1, 0, `  ${where.line} | ${quoted.trim()}`);
  }
  return lines.join('\n').replaceAll(`${dir}/`, '');
}
