/** A small YAML text whose aliases expand to 10^10 nodes (the "billion laughs" of YAML). */
export function yamlAliasBomb(): string {
  const lines = ['a: &a [x, x, x, x, x, x, x, x, x, x]'];
  for (let i = 1; i < 10; i++)
    lines.push(
      `l${i}: &l${i} [${Array(10)
        .fill(i === 1 ? '*a' : `*l${i - 1}`)
        .join(', ')}]`,
    );
  return `${lines.join('\n')}\n`;
}
