/** The line `nginx -T` writes before each file it dumps. */
const FILE_MARKER = /^# configuration file (\/.*):$/;

/**
 * Splits the output of `nginx -T` (every file nginx read, each after a `# configuration file
 * PATH:` line, main file first) back into its files: path → text, in the order dumped. nginx adds
 * one line break after each file, which is taken off again (each file ends in one), so lines count as in the file itself.
 * undefined when the text is not such a dump: its first line (after `nginx: ... syntax is ok`
 * lines, when stderr was captured too) is no marker. A file whose own text holds a line exactly
 * like a marker is split there: nginx -T's output cannot tell the two apart either.
 */
export function splitNginxDump(text: string): Map<string, string> | undefined {
  const lines = (text.endsWith('\n') ? text.slice(0, -1) : text).split('\n');
  let at = 0;
  while (at < lines.length && /^nginx: |^\s*$/.test(lines[at] as string)) at++;
  if (!FILE_MARKER.test(lines[at] ?? '')) return undefined;
  const files = new Map<string, string>();
  let path: string | undefined;
  let body: string[] = [];
  const close = () => {
    if (path === undefined) return;
    if (body.at(-1) === '') body.pop();
    // nginx -T dumps a file included twice once; a second copy would say the same.
    if (!files.has(path)) files.set(path, body.length === 0 ? '' : `${body.join('\n')}\n`);
  };
  for (const line of lines.slice(at)) {
    const marker = FILE_MARKER.exec(line);
    if (!marker) {
      body.push(line);
      continue;
    }
    close();
    path = marker[1] as string;
    body = [];
  }
  close();
  return files;
}
