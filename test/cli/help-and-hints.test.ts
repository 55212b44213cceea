import { chmod, mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { COMMANDS, commandsFor } from '../../cli/commands/index.js';
import { createProgram } from '../../cli/program.js';
import { plainStdoutOutput } from '../../cli/standard-output.js';
import { addHelpExamples, allCommands, commandPath, HELP_EXAMPLES } from '../../cli/help-examples.js';
import { invokedName, withInvokedName } from '../../cli/invoked-name.js';

const ROOT = process.cwd();
const CLI = join(ROOT, 'dist', 'cli', 'main.js');
/** The environment of a plain shell: no npm variables leaking in from how the tests were started. */
const PLAIN = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('npm_')));

function program(): Command {
  const root = new Command('proxyops');
  for (const { register } of COMMANDS) register(root);
  addHelpExamples(root);
  return root;
}

describe('--help examples', () => {
  const commands = allCommands(program());

  it('every command has examples, and every example belongs to a command', () => {
    const paths = commands.map(commandPath);
    expect(paths.length).toBeGreaterThan(15);
    for (const path of paths) expect(HELP_EXAMPLES[path], path).toBeDefined();
    for (const path of Object.keys(HELP_EXAMPLES)) expect(paths).toContain(path);
  });

  it('uses only options the command has', () => {
    for (const command of commands) {
      const path = commandPath(command);
      const own = new Set(command.options.map((option) => option.long));
      const sub = new Set(command.commands.map((c) => c.name()));
      for (const example of HELP_EXAMPLES[path]!) {
        const words = example.replace(/#.*$/, '').trim().split(/\s+/);
        expect(words.slice(0, path.split(' ').length).join(' '), example).toBe(path);
        const next = words[path.split(' ').length];
        if (next !== undefined && sub.has(next)) continue; // an example of a subcommand, checked there
        for (const word of words.filter((w) => w.startsWith('--')))
          expect(own, `${path}: ${word}`).toContain(word);
      }
    }
  });

  it('prints them after the options, with the name the CLI was run by', async () => {
    const direct = await execa('node', [CLI, 'config', 'apply', '--help'], {
      cwd: ROOT,
      env: PLAIN,
      extendEnv: false,
    });
    expect(direct.stdout).toMatch(
      /Examples:\n {2}node dist\/cli\/main\.js config apply --spec proxy\.yaml --target/,
    );
    const npx = await execa('node', [CLI, 'logs', 'stats', '--help'], {
      cwd: ROOT,
      env: { ...PLAIN, npm_command: 'exec', npm_lifecycle_event: 'npx' },
      extendEnv: false,
    });
    expect(npx.stdout).toContain('  npx proxyops logs stats /var/log/nginx/access.log');
  });
});

describe('the commands a run declares', () => {
  const under = (root: Command, name: string) =>
    allCommands(root).filter((command) => commandPath(command).split(' ')[0] === name);

  it('for a run naming a command: that command, as the whole program declares it', () => {
    const full = program();
    for (const top of full.commands) {
      const root = new Command('proxyops');
      const { rows, extent } = commandsFor([top.name(), 'x', '--help']);
      expect(extent).toBe('whole');
      for (const { register } of rows) register(root, extent);
      expect(
        root.commands.map((command) => command.name()),
        top.name(),
      ).toContain(top.name());
      expect(under(root, top.name()).map((command) => command.helpInformation())).toEqual(
        under(full, top.name()).map((command) => command.helpInformation()),
      );
    }
  });

  it('the head of every command when the first word names none (a typo, no word)', () => {
    for (const args of [[], ['--help'], ['--debug'], ['lgos', 'stats'], ['help'], ['help', 'lgos'], ['-V']])
      expect(commandsFor(args), args.join(' ')).toEqual({ rows: COMMANDS, extent: 'head' });
    expect(commandsFor(['--debug', 'up']).rows.map((row) => row.names)).toEqual([['up', 'down']]);
    expect(commandsFor(['help', 'logs', 'stats'])).toEqual(commandsFor(['logs', 'stats', '--help']));
  });

  it('for a run naming none: the program as the whole program declares it, to its help, version and suggestions', () => {
    const whole = createProgram({ rows: COMMANDS, extent: 'whole' }, plainStdoutOutput());
    // Hidden ones (remote) too: what commander matches a word against and suggests from.
    const facts = (root: Command) =>
      root.commands.map((command) => ({
        term: root.createHelp().subcommandTerm(command),
        description: command.description(),
        aliases: command.aliases(),
      }));
    for (const args of [['--help'], ['-V'], ['lgos']]) {
      const heads = createProgram(commandsFor(args), plainStdoutOutput());
      expect(heads.helpInformation(), args.join(' ')).toBe(whole.helpInformation());
      expect(facts(heads), args.join(' ')).toEqual(facts(whole));
      expect(heads.version()).toBe(whole.version());
    }
  });

  it('prints every --help into a pipe as the whole program does', async () => {
    // The examples name the CLI as it was invoked: here, the same name in both.
    const env = { ...PLAIN, PROXYOPS_INVOKED_AS: 'proxyops' };
    let printed = '';
    const output = { ...plainStdoutOutput(), writeOut: (text: string) => void (printed += text) };
    const whole = createProgram({ rows: COMMANDS, extent: 'whole' }, output);
    for (const command of [whole, ...allCommands(whole)]) {
      const path = commandPath(command);
      const run = await execa('node', [CLI, ...(path === '' ? [] : path.split(' ')), '--help'], {
        cwd: ROOT,
        env,
        extendEnv: false,
        stripFinalNewline: false,
      });
      printed = '';
      const invokedAs = process.env.PROXYOPS_INVOKED_AS;
      process.env.PROXYOPS_INVOKED_AS = env.PROXYOPS_INVOKED_AS;
      try {
        command.outputHelp();
      } finally {
        if (invokedAs === undefined) delete process.env.PROXYOPS_INVOKED_AS;
        else process.env.PROXYOPS_INVOKED_AS = invokedAs;
      }
      expect(run.stdout, path || 'proxyops').toBe(printed);
    }
  });

  it('a typo still gets the suggestion', async () => {
    const run = await execa('node', [CLI, 'lgos', 'stats'], {
      cwd: ROOT,
      env: PLAIN,
      extendEnv: false,
      reject: false,
    });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/unknown command 'lgos'[\s\S]*logs/);
  });
});

describe('the invoked name in hints', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'proxyops-name-'));
    await mkdir(join(dir, 'bin'));
    await symlink(CLI, join(dir, 'bin', 'proxyops'));
    await chmod(CLI, 0o755); // as npm's bin linking (npm ci, npx, npm link) makes it
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is `npx proxyops` through npx, `proxyops` from PATH, else the path that ran', () => {
    expect(invokedName({ npm_command: 'exec' }, ['node', CLI], ROOT)).toBe('npx proxyops');
    const bin = join(dir, 'bin', 'proxyops');
    expect(invokedName({ PATH: `/usr/bin:${join(dir, 'bin')}` }, ['node', bin], '/')).toBe('proxyops');
    expect(invokedName({ PATH: '/usr/bin' }, ['node', bin], dir)).toBe('bin/proxyops');
    expect(invokedName({ PATH: '/usr/bin' }, ['node', CLI], ROOT)).toBe('node dist/cli/main.js');
    expect(invokedName({ PATH: '/usr/bin' }, ['node', CLI], dir)).toBe(`node ${CLI}`);
    expect(invokedName({}, ['node', '/srv/my tools/main.js'], '/tmp')).toBe(`node '/srv/my tools/main.js'`);
    expect(invokedName({ PROXYOPS_INVOKED_AS: './proxyops' }, ['node', CLI], ROOT)).toBe('./proxyops');
  });

  it("through the checkout's ./proxyops wrapper, a hint says ./proxyops and runs as shown", async () => {
    const result = await execa('./proxyops', ['deploy', '--dir', 'nothing-here'], {
      cwd: ROOT,
      env: PLAIN,
      extendEnv: false,
      reject: false,
    });
    expect(result.exitCode).toBe(2);
    const hint = /start one with `([^`]+)`/.exec(result.stderr)?.[1];
    expect(hint, result.stderr).toMatch(/^\.\/proxyops up/);
    const run = await execa('bash', ['-c', `${hint!} --help`], {
      cwd: ROOT,
      env: PLAIN,
      extendEnv: false,
      reject: false,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout).toContain('Examples:');
  });

  it('rewrites only quoted commands', () => {
    expect(withInvokedName('run `proxyops up --dir x`; proxyops is fine', 'npx proxyops')).toBe(
      'run `npx proxyops up --dir x`; proxyops is fine',
    );
  });

  it('a hint on stderr runs as shown, from where the CLI ran', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'proxyops-hint-'));
    try {
      for (const env of [PLAIN, { ...PLAIN, PATH: `${join(dir, 'bin')}:${PLAIN.PATH}` }]) {
        const script = env === PLAIN ? CLI : join(dir, 'bin', 'proxyops');
        const result = await execa('node', [script, 'deploy', '--dir', 'nothing-here'], {
          cwd,
          env,
          extendEnv: false,
          reject: false,
        });
        expect(result.exitCode).toBe(2);
        const hint = /start one with `([^`]+)`/.exec(result.stderr)?.[1];
        expect(hint, result.stderr).toBeDefined();
        // The hint itself, asked for its help: it must be a command this shell can run.
        const run = await execa('bash', ['-c', `${hint} --help`], {
          cwd,
          env,
          extendEnv: false,
          reject: false,
        });
        expect(run.exitCode, `${hint}: ${run.stderr}`).toBe(0);
        expect(run.stdout).toContain('Examples:');
      }
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
