import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDebianTree, hashTree, type DebianTree } from '../../support/debian-tree.js';
import { freePort } from '../../support/ports.js';
import { runCli } from '../../support/run-cli.js';

// `config validate` of a spec naming a hand-written config: nothing is rendered, so it lints the
// tree as `config lint` does and runs nginx -t on a copy, with the running master's binary and prefix.
// Each case runs the built CLI several times against a real nginx: minutes on a loaded CI machine.
describe('config validate of a spec naming a hand-written config', { timeout: 120_000 }, () => {
  let tree: DebianTree;
  let spec: string;

  beforeAll(async () => {
    const port = await freePort();
    tree = await buildDebianTree({ servers: [{ host: '127.0.0.2', port }], listenPort: await freePort() });
    spec = join(tree.root, 'spec.json');
    await writeFile(
      spec,
      JSON.stringify({
        version: 1,
        nginx: { conf: tree.conf, state: join(tree.root, 'state') },
        upstreams: { app: { servers: [{ host: '127.0.0.2', port, alternate: `127.0.0.2:${port + 1}` }] } },
      }),
    );
    await tree.start();
  });

  afterAll(async () => {
    await tree?.remove();
  });

  it("lints the tree as config lint does and tests it on a copy with the master's nginx; nothing changes", async () => {
    const before = await hashTree(tree.dir);
    const pids = await tree.pids();
    const validated = await runCli(['config', 'validate', '--spec', spec]);
    const linted = await runCli(['config', 'lint', tree.conf]);
    expect(validated.code, validated.stderr).toBe(0);
    const lines = validated.stdout.split('\n');
    expect(lines[0]).toBe(`${spec}: spec valid (1 upstream, hand-written config ${tree.conf})`);
    expect(lines[1]).toMatch(
      new RegExp(`^lint of the hand-written tree \\(\\d+ files, as config lint ${tree.conf} reads it\\):$`),
    );
    // The same findings and totals config lint prints for the main file. How many nginx masters run
    // on this machine (said when more than one) is counted at each run, and other test files start
    // and stop theirs between two.
    const masters = (text: string) =>
      text.replace(/ of \d+ masters on this machine/, ' of N masters on this machine');
    expect(masters(`${lines.slice(2, -2).join('\n')}\n`)).toBe(masters(linted.stdout.trimEnd() + '\n'));
    expect(lines.at(-2)).toMatch(
      new RegExp(
        `^nginx -t on a copy of the tree: ok \\(\\S*nginx -p \\S+, as nginx master ${pids.master} runs it\\); what adopting would change: config diff --spec ${spec}$`,
      ),
    );
    expect(validated.stdout).not.toContain('rendered');
    expect(await hashTree(tree.dir)).toEqual(before);
    expect(await tree.pids()).toEqual(pids);
  });

  it('fails (exit 1) where nginx -t refuses the tree, naming the real file, and changes nothing', async () => {
    const text = await readFile(tree.otherUpstreamFile, 'utf8');
    await writeFile(tree.otherUpstreamFile, `${text}no_such_directive on;\n`);
    try {
      const before = await hashTree(tree.dir);
      const validated = await runCli(['config', 'validate', '--spec', spec]);
      expect(validated.code).toBe(1);
      expect(validated.stderr).toMatch(/unknown directive "no_such_directive"/);
      expect(validated.stderr).toContain(tree.otherUpstreamFile);
      expect(await hashTree(tree.dir)).toEqual(before);
    } finally {
      await writeFile(tree.otherUpstreamFile, text);
    }
  });

  it('refuses a spec whose tree is on the hosts under proxies, naming config diff', async () => {
    const remote = join(tree.root, 'hosts.json');
    await writeFile(
      remote,
      JSON.stringify({
        version: 1,
        nginx: { conf: '/etc/nginx/nginx.conf' },
        upstreams: { app: { servers: [{ host: '10.0.1.11', port: 8080, alternate: 8081 }] } },
        proxies: [{ ssh: 'web1', target: '/var/lib/proxyops' }],
      }),
    );
    const validated = await runCli(['config', 'validate', '--spec', remote]);
    expect(validated.code).toBe(2);
    expect(validated.stderr).toContain(`config diff --spec ${remote} shows what each host would change`);
  });
});
